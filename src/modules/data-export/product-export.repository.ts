import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Slice } from './collection.js';
import { applySlice } from './export-slice.repository.js';

// The reads behind the product export (products.export.ts turns them into items).

export function readProducts(db: Kysely<Database>, slice: Slice) {
  return applySlice(
    db
      .selectFrom('product')
      .select([
        'product.id',
        'product.code',
        'product.type',
        'product.language',
        'product.name',
        'product.description',
        'product.shop_price_cents',
        'product.original_price_cents',
        'product.wholesale_price_cents',
        'product.vat_rate_percent',
        'product.web_stock',
        'product.image_url',
        'product.created_at',
        'product.updated_at',
        'product.publisher_id',
        'product.physical_book_id',
      ]),
    'product',
    slice,
  ).execute();
}

export async function readPublishers(db: Kysely<Database>, ids: number[]) {
  return ids.length === 0 ? [] : db.selectFrom('publisher').select(['id', 'code', 'name']).where('id', 'in', ids).execute();
}

export async function readProductCodes(db: Kysely<Database>, ids: number[]) {
  return ids.length === 0 ? [] : db.selectFrom('product').select(['id', 'code']).where('id', 'in', ids).execute();
}

/** The products' authors, in credit order. */
export function readAuthors(db: Kysely<Database>, productIds: number[]) {
  return db
    .selectFrom('product_person')
    .innerJoin('person', 'person.id', 'product_person.person_id')
    .select(['product_person.product_id', 'person.code', 'person.name'])
    .where('product_person.product_id', 'in', productIds)
    .where('product_person.role', '=', 'AUTHOR')
    .orderBy('product_person.product_id')
    .orderBy('product_person.position')
    .execute();
}

export function readProductStores(db: Kysely<Database>, productIds: number[]) {
  return db
    .selectFrom('product_store')
    .select(['product_id', 'store_code'])
    .where('product_id', 'in', productIds)
    .orderBy('store_code')
    .execute();
}

/** Retail prices of the products in active campaigns (validity is checked by pricing, at `now`). */
export function readRetailCampaignPrices(db: Kysely<Database>, productIds: number[]) {
  return db
    .selectFrom('campaign_price')
    .innerJoin('campaign', 'campaign.id', 'campaign_price.campaign_id')
    .select(['campaign_price.product_id', 'campaign_price.price_cents', 'campaign.store_code', 'campaign.valid_from', 'campaign.valid_to'])
    .where('campaign_price.product_id', 'in', productIds)
    .where('campaign_price.customer_kind', '=', 'RETAIL')
    .where('campaign.is_active', '=', true)
    .execute();
}

export function readStoreDiscounts(db: Kysely<Database>) {
  return db.selectFrom('web_store').select(['code', 'guest_discount_percent', 'logged_in_discount_percent']).execute();
}

export function readCategoryLinks(db: Kysely<Database>, productIds: number[]) {
  return db
    .selectFrom('product_category')
    .select(['product_id', 'category_id'])
    .where('product_id', 'in', productIds)
    .orderBy('product_id')
    .orderBy('category_id')
    .execute();
}

export function readCategories(db: Kysely<Database>, ids: number[]) {
  return db.selectFrom('category').select(['id', 'code', 'store_code', 'parent_id', 'level']).where('id', 'in', ids).execute();
}

export function readCategoryNames(db: Kysely<Database>, categoryIds: number[]) {
  return db.selectFrom('category_name').select(['category_id', 'language', 'name']).where('category_id', 'in', categoryIds).execute();
}
