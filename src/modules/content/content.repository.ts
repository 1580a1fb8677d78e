import type { Kysely, Selectable } from 'kysely';
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

/** The store's pages of a kind under a key: one for a slug, any number for a category or the main page (told apart by window). */
export function blockPages(db: Kysely<Database>, storeCode: string, key: BlockPageKey): Promise<BlockPageRow[]> {
  let query = db
    .selectFrom('block_page')
    .selectAll()
    .where('store_code', '=', storeCode)
    .where('kind', '=', key.kind as BlockPageKind);
  if ('slug' in key) query = query.where('slug', '=', key.slug);
  if ('categoryId' in key) query = query.where('category_id', '=', key.categoryId);
  return query.orderBy('id').execute();
}

export function blocksOf(db: Kysely<Database>, pageId: number): Promise<PageBlockRow[]> {
  return db.selectFrom('page_block').selectAll().where('page_id', '=', pageId).orderBy('position').execute();
}

/** The store's banners of these placements, in display order. */
export function bannersAt(db: Kysely<Database>, storeCode: string, placements: readonly string[]): Promise<BannerRow[]> {
  if (placements.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('banner')
    .selectAll()
    .where('store_code', '=', storeCode)
    .where('placement', 'in', [...placements])
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function menusOf(db: Kysely<Database>, storeCode: string): Promise<MenuRow[]> {
  return db.selectFrom('menu').selectAll().where('store_code', '=', storeCode).orderBy('id').execute();
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
