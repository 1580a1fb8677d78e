import { sql, type Kysely, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { BannerTable, BlockPageKind, BlockPageTable, ContentPageTable, MenuTable, PageBlockTable } from './content.tables.js';

// The content module's reads. Each one fetches the few rows a key can have (a slug, a category, a
// store's main pages, menus or banners of a placement); which of them is published now is decided
// in code (published.ts), the one definition of a window and of a draft.

export type ContentPageRow = Selectable<ContentPageTable>;
export type BlockPageRow = Selectable<BlockPageTable>;
export type PageBlockRow = Selectable<PageBlockTable>;
export type BannerRow = Selectable<BannerTable>;
export type MenuRow = Selectable<MenuTable>;

export function contentPageBySlug(db: Kysely<Database>, storeCode: string, slug: string): Promise<ContentPageRow | undefined> {
  return db.selectFrom('content_page').selectAll().where('store_code', '=', storeCode).where('slug', '=', slug).executeTakeFirst();
}

export type BlockPageKey = { kind: 'COMPOSITE' | 'DISCOUNT'; slug: string } | { kind: 'CATEGORY'; categoryId: number } | { kind: 'MAIN' };

/** Whom a read is for: the public at `now`, or an operator's preview (published.ts's Audience). */
export interface ReadFor {
  now: number;
  preview: boolean;
}

/**
 * Of the items under one key (a store's main pages or menus, a category's pages), the ones that can
 * be the one shown (the one that started last, published.ts's currentOf) or change which one is:
 * - for the public, the items that have not ended (running or to come: their end is after `now`),
 *   the open-ended ones to come, and of the open-ended active ones that started, the one that
 *   started last (with a start) and the newest without a start;
 * - for a preview (which sees everything), the one that started last and the newest without a start.
 * An ended item, or an open-ended one that started before that one, is neither shown nor an edge to
 * come. A shop schedules an item for each season and what ended stays: every item the key ever had
 * was read. Each part is a range of the key's window index (migration 2026_12_04_1010), so a read is
 * as small as what runs and is scheduled, however many seasons came before.
 */
async function candidates<Row>(
  run: (part: { where?: RawBuilder<SqlBool>; latest?: boolean }) => Promise<Row[]>,
  table: string,
  { now, preview }: ReadFor,
): Promise<Row[]> {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  const from = column('visible_from');
  const to = column('visible_to');
  const parts: Array<Promise<Row[]>> = preview
    ? [run({ where: sql<SqlBool>`${from} is not null`, latest: true }), run({ where: sql<SqlBool>`${from} is null`, latest: true })]
    : [
        run({ where: sql<SqlBool>`${to} > ${now}` }),
        run({ where: sql<SqlBool>`${to} is null and ${from} > ${now}` }),
        run({ where: sql<SqlBool>`${to} is null and ${from} <= ${now} and ${column('is_active')} = ${true}`, latest: true }),
        run({ where: sql<SqlBool>`${to} is null and ${from} is null and ${column('is_active')} = ${true}`, latest: true }),
      ];
  return (await Promise.all(parts)).flat();
}

/** The store's pages under a key that can be the one shown to `audience`: one for a slug; for a category or the main page, see `candidates`. */
export function blockPages(db: Kysely<Database>, storeCode: string, key: BlockPageKey, audience: ReadFor): Promise<BlockPageRow[]> {
  const base = () => {
    const query = db
      .selectFrom('block_page')
      .selectAll()
      .where('store_code', '=', storeCode)
      .where('kind', '=', key.kind as BlockPageKind);
    if ('slug' in key) return query.where('slug', '=', key.slug);
    return query.where('category_id', key.kind === 'CATEGORY' ? '=' : 'is', key.kind === 'CATEGORY' ? key.categoryId : null);
  };
  // A slug is unique in its store and kind: its one page.
  if ('slug' in key) return base().execute();
  return candidates(
    ({ where, latest }) =>
      base()
        .$if(where !== undefined, (query) => query.where(where!))
        .$if(latest === true, (query) => query.orderBy('visible_from', 'desc').orderBy('id', 'desc').limit(1))
        .execute(),
    'block_page',
    audience,
  );
}

export function blocksOf(db: Kysely<Database>, pageId: number): Promise<PageBlockRow[]> {
  return db.selectFrom('page_block').selectAll().where('page_id', '=', pageId).orderBy('position').execute();
}

/**
 * The store's banners of these placements, in display order; for the public only those that have not
 * ended (an ended banner is neither shown nor an edge to come): each season's banners stay after it,
 * and were read with every answer. The ones that end later and the open-ended ones are two ranges of
 * `banner_window_idx`.
 */
export async function bannersAt(
  db: Kysely<Database>,
  storeCode: string,
  placements: readonly string[],
  audience: ReadFor,
): Promise<BannerRow[]> {
  if (placements.length === 0) return [];
  const read = (where?: RawBuilder<SqlBool>) =>
    db
      .selectFrom('banner')
      .selectAll()
      .where('store_code', '=', storeCode)
      .where('placement', 'in', [...placements])
      .$if(where !== undefined, (query) => query.where(where!))
      .execute();
  const rows = audience.preview
    ? await read()
    : (await Promise.all([read(sql<SqlBool>`banner.visible_to > ${audience.now}`), read(sql<SqlBool>`banner.visible_to is null`)])).flat();
  return rows.sort((a, b) => Number(a.position) - Number(b.position) || Number(a.id) - Number(b.id));
}

/** The store's menus that can be the one shown to `audience` (see `candidates`). */
export function menusOf(db: Kysely<Database>, storeCode: string, audience: ReadFor): Promise<MenuRow[]> {
  return candidates(
    ({ where, latest }) =>
      db
        .selectFrom('menu')
        .selectAll()
        .where('store_code', '=', storeCode)
        .$if(where !== undefined, (query) => query.where(where!))
        .$if(latest === true, (query) => query.orderBy('visible_from', 'desc').orderBy('id', 'desc').limit(1))
        .execute(),
    'menu',
    audience,
  );
}

/** Product ids by back-office code; codes with no product are left out. */
export async function productIdsByCode(db: Kysely<Database>, codes: readonly string[]): Promise<Map<string, number>> {
  if (codes.length === 0) return new Map();
  const rows = await db
    .selectFrom('product')
    .select(['id', 'code'])
    .where('code', 'in', [...new Set(codes)])
    .execute();
  return new Map(rows.map((row) => [row.code, Number(row.id)]));
}

export interface CampaignFacts {
  id: number;
  code: string;
  imageUrl: string | null;
  isActive: boolean;
  validFrom: number | null;
  validTo: number | null;
  names: Partial<Record<string, { name: string; description: string | null }>>;
}

/** The store's campaigns with these codes, with their names in every language (the catalogue's tables, read only). */
export async function campaignsByCode(
  db: Kysely<Database>,
  storeCode: string,
  codes: readonly string[],
): Promise<Map<string, CampaignFacts>> {
  if (codes.length === 0) return new Map();
  const campaigns = await db
    .selectFrom('campaign')
    .select(['id', 'code', 'image_url', 'is_active', 'valid_from', 'valid_to'])
    .where('store_code', '=', storeCode)
    .where('code', 'in', [...new Set(codes)])
    .execute();
  if (campaigns.length === 0) return new Map();
  const names = await db
    .selectFrom('campaign_name')
    .select(['campaign_id', 'language', 'name', 'description'])
    .where(
      'campaign_id',
      'in',
      campaigns.map((campaign) => campaign.id),
    )
    .execute();
  const result = new Map<string, CampaignFacts>();
  for (const campaign of campaigns) {
    const id = Number(campaign.id);
    const own = names.filter((name) => Number(name.campaign_id) === id);
    result.set(campaign.code, {
      id,
      code: campaign.code,
      imageUrl: campaign.image_url,
      isActive: Boolean(campaign.is_active),
      validFrom: campaign.valid_from === null ? null : Number(campaign.valid_from),
      validTo: campaign.valid_to === null ? null : Number(campaign.valid_to),
      names: Object.fromEntries(own.map((name) => [name.language, { name: name.name, description: name.description }])),
    });
  }
  return result;
}
