import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { isPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';

// The SQL of the prices import (prices.ts): a product's prices, and companies' own prices.

/**
 * The product's prices, locked on PostgreSQL until the line commits (as findCoded's): the line writes
 * the prices it does not give and discount_percent from them, so a product feed's line changing
 * them meanwhile waits rather than be overwritten with a discount of prices no longer stored.
 */
export function readProductPrices(trx: Db, productId: number) {
  const query = trx
    .selectFrom('product')
    .select(['shop_price_cents', 'original_price_cents', 'wholesale_price_cents', 'vat_rate_percent', 'discount_percent'])
    .where('id', '=', productId);
  return (isPostgres(trx) ? query.forNoKeyUpdate() : query).executeTakeFirstOrThrow();
}

export async function updateProduct(trx: Db, productId: number, values: Updateable<Database['product']>): Promise<void> {
  await trx.updateTable('product').set(values).where('id', '=', productId).execute();
}

/** A registry code may belong to several company records (one per account). */
export function findCompanyIds(trx: Db, registryCode: string) {
  return trx.selectFrom('company').select('id').where('registry_code', '=', registryCode).execute();
}

export function findCompanyPrice(trx: Db, companyId: number, productId: number) {
  return trx
    .selectFrom('company_product_price')
    .select('price_cents')
    .where('company_id', '=', companyId)
    .where('product_id', '=', productId)
    .executeTakeFirst();
}

export async function deleteCompanyPrice(trx: Db, companyId: number, productId: number): Promise<void> {
  await trx.deleteFrom('company_product_price').where('company_id', '=', companyId).where('product_id', '=', productId).execute();
}

export async function insertCompanyPrice(trx: Db, companyId: number, productId: number, priceCents: number): Promise<void> {
  await trx.insertInto('company_product_price').values({ company_id: companyId, product_id: productId, price_cents: priceCents }).execute();
}

export async function updateCompanyPrice(trx: Db, companyId: number, productId: number, priceCents: number): Promise<void> {
  await trx
    .updateTable('company_product_price')
    .set({ price_cents: priceCents })
    .where('company_id', '=', companyId)
    .where('product_id', '=', productId)
    .execute();
}
