import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { createProduct } from '../helpers/catalogue.js';
import type { TestApp } from '../helpers/test-app.js';
import { importContent, putContent, read } from '../content/content-helpers.js';

// A date alone in an import is a day in Tallinn, where the shop is: it starts at the local midnight
// and a window's last day runs to the next one, in winter (UTC+2) and summer (UTC+3) alike and
// across the clock changes of the last Sundays of March and October. A date-time keeps its offset.

const at = (iso: string) => Date.parse(iso);
const clock = fixedClock(at('2026-11-30T12:00:00Z'));

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp({ clock }));
  await createProduct(t.database.db, { code: 'BOOK', price: 20 });
});
afterAll(() => t.close());

async function imported(kind: string, lines: unknown[]): Promise<void> {
  const response = await importContent(t, key, kind, lines);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().errorCount, response.body).toBe(0);
}

const title = { et: { title: 'Pealkiri' } };

/** A campaign imported with these bounds, and the window stored for it (Unix ms). */
async function campaignWindow(code: string, validFrom: string, validTo: string): Promise<number[]> {
  const prices = [{ product: 'BOOK', customerKind: 'RETAIL', price: 15 }];
  await imported('campaigns', [{ code, store: 'WEB', validFrom, validTo, names: { et: code }, prices }]);
  const row = await t.database.db
    .selectFrom('campaign')
    .select(['valid_from', 'valid_to'])
    .where('code', '=', code)
    .executeTakeFirstOrThrow();
  return [Number(row.valid_from), Number(row.valid_to)];
}

describe('date-only values in imports are Tallinn days', () => {
  it("a campaign runs from the first day's local midnight to the end of its last day", async () => {
    expect(await campaignWindow('JOULUD', '2026-12-01', '2026-12-14')).toEqual([at('2026-11-30T22:00:00Z'), at('2026-12-14T22:00:00Z')]);
  });

  it('across the clock changes: summer days are UTC+3, the change days are 23 and 25 hours long', async () => {
    await imported('discount-codes', [
      // The last Sunday of March 2027 is the 28th: its midnight is still winter time, its end summer time.
      { code: 'SPRING', percent: 10, validFrom: '2027-03-28', validTo: '2027-03-28' },
      // The last Sunday of October 2027 is the 31st: its midnight is summer time, its end winter time.
      { code: 'AUTUMN', percent: 10, validFrom: '2027-10-31', validTo: '2027-10-31' },
      { code: 'SUMMER', percent: 10, validFrom: '2027-06-01', validTo: '2027-08-31' },
    ]);
    const rows = await t.database.db
      .selectFrom('discount_code')
      .select(['code', 'valid_from', 'valid_to'])
      .where('code', 'in', ['SPRING', 'AUTUMN', 'SUMMER'])
      .orderBy('code')
      .execute();
    expect(rows.map((row) => [row.code, Number(row.valid_from), Number(row.valid_to)])).toEqual([
      ['AUTUMN', at('2027-10-30T21:00:00Z'), at('2027-10-31T22:00:00Z')],
      ['SPRING', at('2027-03-27T22:00:00Z'), at('2027-03-28T21:00:00Z')],
      ['SUMMER', at('2027-05-31T21:00:00Z'), at('2027-08-31T21:00:00Z')],
    ]);
  });

  it('a banner is shown from local midnight through the last minute of its last day, over HTTP', async () => {
    await imported('banners', [
      { code: 'XMAS', store: 'WEB', placement: 'HEADER', visibleFrom: '2026-12-01', visibleTo: '2026-12-24', translations: title },
    ]);
    const shown = async (iso: string) => {
      clock.set(at(iso));
      const response = await read(t, '/header-banner');
      expect(response.statusCode, response.body).toBe(200);
      return response
        .json()
        .map((banner: { code: string }) => banner.code)
        .includes('XMAS');
    };
    expect(await shown('2026-11-30T21:59:59Z')).toBe(false);
    expect(await shown('2026-11-30T22:00:00Z')).toBe(true); // 00:00 on 1 December in Tallinn
    expect(await shown('2026-12-24T21:59:59Z')).toBe(true); // 23:59:59 on 24 December
    expect(await shown('2026-12-24T22:00:00Z')).toBe(false);
  });

  it('content pages, blocks (also as a single edit) and blog posts and news, their published dates too', async () => {
    await imported('content-pages', [
      {
        code: 'ABOUT',
        store: 'WEB',
        slug: 'meist',
        visibleFrom: '2027-07-01',
        visibleTo: '2027-07-31',
        translations: { et: { title: 'Meist', body: '<p>x</p>' } },
      },
    ]);
    await imported('blog-posts', [
      {
        code: 'POST-1',
        store: 'WEB',
        language: 'et',
        slug: 'sugis',
        title: 'Sügis',
        body: '<p>x</p>',
        visibleFrom: '2026-12-01',
        visibleTo: '2026-12-31',
        publishedAt: '2026-11-20',
      },
    ]);
    await imported('news', [
      { code: 'NEWS-1', store: 'WEB', slug: 'uus', translations: { et: { title: 'Uus', body: '<p>x</p>' } }, publishedAt: '2027-06-15' },
    ]);
    const edit = await putContent(t, key, 'banners', 'EDITED', {
      store: 'WEB',
      placement: 'HEADER',
      visibleFrom: '2027-01-01',
      visibleTo: '2027-01-01',
      translations: title,
    });
    expect(edit.statusCode, edit.body).toBeLessThan(300);
    const db = t.database.db;
    const page = await db
      .selectFrom('content_page')
      .select(['visible_from', 'visible_to'])
      .where('code', '=', 'ABOUT')
      .executeTakeFirstOrThrow();
    const post = await db
      .selectFrom('blog_post')
      .select(['visible_from', 'visible_to', 'published_at'])
      .where('code', '=', 'POST-1')
      .executeTakeFirstOrThrow();
    const news = await db.selectFrom('news').select('published_at').where('code', '=', 'NEWS-1').executeTakeFirstOrThrow();
    const banner = await db
      .selectFrom('banner')
      .select(['visible_from', 'visible_to'])
      .where('code', '=', 'EDITED')
      .executeTakeFirstOrThrow();
    expect([page.visible_from, page.visible_to].map(Number)).toEqual([at('2027-06-30T21:00:00Z'), at('2027-07-31T21:00:00Z')]);
    expect([post.visible_from, post.visible_to, post.published_at].map(Number)).toEqual([
      at('2026-11-30T22:00:00Z'),
      at('2026-12-31T22:00:00Z'),
      at('2026-11-19T22:00:00Z'),
    ]);
    expect(Number(news.published_at)).toBe(at('2027-06-14T21:00:00Z'));
    expect([banner.visible_from, banner.visible_to].map(Number)).toEqual([at('2026-12-31T22:00:00Z'), at('2027-01-01T22:00:00Z')]);
  });

  it('a date-time keeps its own offset, and a release date stays the date the shop shows', async () => {
    expect(await campaignWindow('TIMED', '2026-12-01T08:00:00+02:00', '2026-12-14T12:00:00Z')).toEqual([
      at('2026-12-01T06:00:00Z'),
      at('2026-12-14T12:00:00Z'),
    ]);

    await imported('products', [
      {
        code: 'NEW',
        type: 'BOOK',
        name: 'Uus',
        stores: ['WEB'],
        shopPrice: 9.9,
        vatRate: 9,
        availability: 'AVAILABLE',
        releasedAt: '2026-11-01',
      },
      { code: 'BOOK', type: 'BOOK', name: 'Raamat', stores: ['WEB'], shopPrice: 20, vatRate: 9, availability: 'AVAILABLE' },
    ]);
    const product = await t.database.db.selectFrom('product').select('released_at').where('code', '=', 'NEW').executeTakeFirstOrThrow();
    expect(Number(product.released_at)).toBe(at('2026-11-01T00:00:00Z'));
  });
});
