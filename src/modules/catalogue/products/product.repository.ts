import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { AssetKind } from '../catalogue.tables.js';
import type { Language } from '../../../i18n/index.js';
import type { Caller } from '../caller.js';
import { translatedName, withTranslations } from '../translated.js';

export async function findProductIdByCode(db: Kysely<Database>, code: string): Promise<number | undefined> {
  const row = await db.selectFrom('product').select('id').where('code', '=', code).executeTakeFirst();
  return row?.id;
}

export function productAssets(
  db: Kysely<Database>,
  productId: number,
): Promise<Array<{ kind: AssetKind; url: string; mimeType: string | null; width: number | null; height: number | null }>> {
  return db
    .selectFrom('product_asset')
    .select(['kind', 'url', 'mime_type as mimeType', 'width', 'height'])
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** Related products in the back office's order; at most 100 (a product page shows a handful). */
export async function relatedProductIds(db: Kysely<Database>, productId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('product_related')
    .select('related_product_id')
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('related_product_id')
    .limit(100)
    .execute();
  return rows.map((row) => row.related_product_id);
}

/** A physical book's active e-book editions in id order (the first is the one its page keeps); at most 20. */
export function ebookEditions(db: Kysely<Database>, physicalBookId: number): Promise<Array<{ id: number; code: string; name: string }>> {
  return db
    .selectFrom('product')
    .select(['id', 'code', 'name'])
    .where('physical_book_id', '=', physicalBookId)
    .where('type', '=', 'EBOOK')
    .where('is_active', '=', true)
    .orderBy('id')
    .limit(20)
    .execute();
}

/** The campaign whose price the caller gets now: the lowest valid one for their customer kind. */
export async function activeCampaignOf(
  db: Kysely<Database>,
  productId: number,
  caller: Caller,
  storeCode: string,
  now: number,
  language: Language,
): Promise<{ code: string; name: string; validTo: number | null } | null> {
  const kind = caller.kind === 'BUSINESS' ? 'BUSINESS' : 'RETAIL';
  const row = await withTranslations(
    db.selectFrom('campaign_price').innerJoin('campaign', 'campaign.id', 'campaign_price.campaign_id'),
    'campaign_name',
    'campaign.id',
    language,
  )
    .select(['campaign.code', 'campaign.valid_to', 'asked.name as name', 'et.name as et_name'])
    .where('campaign_price.product_id', '=', productId)
    .where('campaign_price.customer_kind', '=', kind)
    .where('campaign.store_code', '=', storeCode)
    .where('campaign.is_active', '=', true)
    .where((eb) => eb.or([eb('campaign.valid_from', 'is', null), eb('campaign.valid_from', '<=', now)]))
    .where((eb) => eb.or([eb('campaign.valid_to', 'is', null), eb('campaign.valid_to', '>', now)]))
    .orderBy('campaign_price.price_cents')
    .orderBy('campaign.id')
    .executeTakeFirst();
  return row ? { code: row.code, name: translatedName(row), validTo: row.valid_to } : null;
}

/** What says whether a campaign runs in a store at a time. */
export interface CampaignWindow {
  storeCode: string;
  isActive: boolean;
  validFrom: number | null;
  validTo: number | null;
}

/** The windows of the store's switched-on campaigns, by id (campaign_store_idx): which of them run is worked out per request. */
export async function readStoreCampaignWindows(
  db: Kysely<Database>,
  storeCode: string,
): Promise<Array<{ id: number; validFrom: number | null; validTo: number | null }>> {
  const rows = await db
    .selectFrom('campaign')
    .select(['id', 'valid_from', 'valid_to'])
    .where('store_code', '=', storeCode)
    .where('is_active', '=', true)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    validFrom: row.valid_from === null ? null : Number(row.valid_from),
    validTo: row.valid_to === null ? null : Number(row.valid_to),
  }));
}

export async function readCampaignWindow(db: Kysely<Database>, id: number): Promise<CampaignWindow | undefined> {
  const row = await db
    .selectFrom('campaign')
    .select(['store_code', 'is_active', 'valid_from', 'valid_to'])
    .where('id', '=', id)
    .executeTakeFirst();
  return (
    row && {
      storeCode: row.store_code,
      isActive: Boolean(row.is_active),
      validFrom: row.valid_from === null ? null : Number(row.valid_from),
      validTo: row.valid_to === null ? null : Number(row.valid_to),
    }
  );
}
