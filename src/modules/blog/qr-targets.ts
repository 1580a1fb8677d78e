import type { Db } from '../../db/database.js';
import { publishedAt } from '../../infra/publishing.js';
import { GUEST, visibleProduct } from '../catalogue/index.js';
import { shownShopId } from './schedule.repository.js';

// What a QR code points to. A code is `<kind>-<code>`, the kind telling which namespace the rest is
// looked up in (split at the first hyphen, so the rest may hold hyphens):
//   product-<product code>   the product page          <front-end>/product/<product id> (one the store sells)
//   shop-<shop code>          the shop's page           <front-end>/shop/<shop code>
//   blog-<post code>          a published blog post     <front-end>/blog/<slug>
//   news-<news code>          a published news item     <front-end>/news/<slug>
//   page-<page code>          a published content page  <front-end>/content-page/<slug>
//   redirect-<redirect code>  an active redirect's old path (the front-end sends it on), so a
//                             printed code can be pointed elsewhere later: <front-end><path>
// Unknown kind or code: 404. A published item's target lasts until its window ends (`until`): a QR
// code answer is not kept past that, when the item's page is a 404.

export const QR_KINDS = ['product', 'shop', 'blog', 'news', 'page', 'redirect'] as const;

/** A QR code's front-end path, and until when it holds (Unix ms; Infinity: no end known ahead). */
export interface QrTarget {
  path: string;
  until: number;
}

type TargetOf = (db: Db, store: string, code: string, now: number) => Promise<QrTarget | undefined>;

const lasting = (path: string): QrTarget => ({ path, until: Infinity });
/** A published item's page, at `prefix`/its slug, until its window ends. */
const published = (prefix: string, row: { slug: string; visible_to: number | string | null } | undefined): QrTarget | undefined =>
  row && { path: `${prefix}/${encodeURIComponent(row.slug)}`, until: row.visible_to === null ? Infinity : Number(row.visible_to) };

const TARGETS: Record<(typeof QR_KINDS)[number], TargetOf> = {
  async product(db, store, code) {
    // The catalogue's rule for the public (active, in the store's assortment, not hidden from it): a
    // code for a product the store does not sell would draw a link to a page that is a 404 there.
    const row = await db
      .selectFrom('product as p')
      .select('p.id')
      .where('p.code', '=', code)
      .where(visibleProduct(store, GUEST))
      .executeTakeFirst();
    return row ? lasting(`/product/${row.id}`) : undefined;
  },
  async shop(db, _store, code) {
    return (await shownShopId(db, code)) === undefined ? undefined : lasting(`/shop/${encodeURIComponent(code)}`);
  },
  async blog(db, store, code, now) {
    const row = await db
      .selectFrom('blog_post')
      .select(['slug', 'visible_to'])
      .where('code', '=', code)
      .where('store_code', '=', store)
      .where(publishedAt('blog_post', now))
      .executeTakeFirst();
    return published('/blog', row);
  },
  async news(db, store, code, now) {
    const row = await db
      .selectFrom('news')
      .select(['slug', 'visible_to'])
      .where('code', '=', code)
      .where('store_code', '=', store)
      .where(publishedAt('news', now))
      .executeTakeFirst();
    return published('/news', row);
  },
  async page(db, store, code, now) {
    const row = await db
      .selectFrom('content_page')
      .select(['slug', 'visible_to'])
      .where('code', '=', code)
      .where('store_code', '=', store)
      .where(publishedAt('content_page', now))
      .executeTakeFirst();
    return published('/content-page', row);
  },
  async redirect(db, store, code) {
    const row = await db
      .selectFrom('redirect')
      .select('path')
      .where('code', '=', code)
      .where('store_code', '=', store)
      .where('is_active', '=', true)
      .executeTakeFirst();
    return row && lasting(row.path);
  },
};

/** The front-end path of a QR code's target in the store, or undefined when there is none. */
export async function qrTarget(db: Db, store: string, qrCode: string, now: number): Promise<QrTarget | undefined> {
  const hyphen = qrCode.indexOf('-');
  if (hyphen <= 0) return undefined;
  const kind = qrCode.slice(0, hyphen);
  const code = qrCode.slice(hyphen + 1);
  if (code === '' || !Object.hasOwn(TARGETS, kind)) return undefined;
  return TARGETS[kind as (typeof QR_KINDS)[number]](db, store, code, now);
}
