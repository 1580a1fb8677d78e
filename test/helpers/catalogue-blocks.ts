import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

// Fixtures of the campaign, list, component, recommendation, quote and shop tests, beside the
// shared ones in catalogue.ts.

type Db = Kysely<Database>;

let sequence = 0;
const next = (prefix: string) => `${prefix}${(sequence += 1)}`;

/** An order of the back office holding these product codes (the recommendations' history). */
export async function createOrder(db: Db, productCodes: string[], createdAt = Date.now()): Promise<number> {
  const row = await db
    .insertInto('sales_history')
    .values({
      order_code: next('WT9'),
      client_code: 'W100',
      client_type: 'PYSIKLIENT',
      source_type: 'ONLINE',
      city: 'Tallinn',
      session_id: null,
      delivery_method: 'COURIER',
      shop_code: null,
      created_at: createdAt,
      created_nav: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (productCodes.length > 0) {
    await db
      .insertInto('sales_history_item')
      .values(productCodes.map((product_code, position) => ({ sales_history_id: row.id, position, product_code })))
      .execute();
  }
  return row.id;
}

export async function relateProducts(db: Db, productId: number, relatedIds: number[]): Promise<void> {
  await db
    .insertInto('product_related')
    .values(relatedIds.map((related_product_id, position) => ({ product_id: productId, related_product_id, position })))
    .execute();
}

export async function createQuote(
  db: Db,
  options: { text: string; language?: string; productId?: number | null; personId?: number | null; code?: string; createdAt?: number },
): Promise<number> {
  const row = await db
    .insertInto('quote')
    .values({
      code: options.code ?? next('Q'),
      product_id: options.productId ?? null,
      person_id: options.personId ?? null,
      language: options.language ?? 'et',
      text: options.text,
      created_at: options.createdAt ?? Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Adds or replaces a shop's name and opening hours in one language. */
export async function nameShop(db: Db, shopId: number, language: string, name: string, openingHours: string | null): Promise<void> {
  await db.deleteFrom('shop_name').where('shop_id', '=', shopId).where('language', '=', language).execute();
  await db.insertInto('shop_name').values({ shop_id: shopId, language, name, opening_hours: openingHours }).execute();
}

/** Adds or replaces a campaign's name and description in one language. */
export async function nameCampaign(db: Db, campaignId: number, language: string, name: string, description: string | null): Promise<void> {
  await db.deleteFrom('campaign_name').where('campaign_id', '=', campaignId).where('language', '=', language).execute();
  await db.insertInto('campaign_name').values({ campaign_id: campaignId, language, name, description }).execute();
}

export async function nameProductList(db: Db, listId: number, language: string, name: string): Promise<void> {
  await db.deleteFrom('product_list_name').where('product_list_id', '=', listId).where('language', '=', language).execute();
  await db.insertInto('product_list_name').values({ product_list_id: listId, language, name }).execute();
}
