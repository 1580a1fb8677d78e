import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../../../db/database.js';
import { preparedListQuery, preparedQuery } from '../../../db/prepared.js';
import type { Database } from '../../../db/schema.js';
import type { Caller } from '../caller.js';
import { toBases } from './product-card.mapper.js';
import { documentBaseReader } from './product-document.repository.js';
import { PRODUCT_BASE_COLUMNS, type BaseReader } from './product-card.types.js';

// The four reads of a base, for one product (`=`) or a page of them (`in`), each prepared once.
type Ids = number | readonly number[];
const productRows = (db: Kysely<Database>, ids: Ids) => {
  const query = db.selectFrom('product').select(PRODUCT_BASE_COLUMNS);
  return Array.isArray(ids) ? query.where('id', 'in', ids) : query.where('id', '=', ids);
};
const storeRows = (db: Kysely<Database>, storeCode: string, ids: Ids) => {
  const query = db.selectFrom('product_store').select('product_id').where('store_code', '=', storeCode);
  return Array.isArray(ids) ? query.where('product_id', 'in', ids) : query.where('product_id', '=', ids);
};
const authorRows = (db: Kysely<Database>, ids: Ids) => {
  const query = db
    .selectFrom('product_person')
    .innerJoin('person', 'person.id', 'product_person.person_id')
    .select(['product_person.product_id', 'person.id', 'person.code', 'person.name'])
    .where('product_person.role', '=', 'AUTHOR');
  return (Array.isArray(ids) ? query.where('product_person.product_id', 'in', ids) : query.where('product_person.product_id', '=', ids))
    .orderBy('product_person.product_id')
    .orderBy('product_person.position');
};
const campaignRows = (db: Kysely<Database>, storeCode: string, ids: Ids) => {
  const query = db
    .selectFrom('campaign_price')
    .innerJoin('campaign', 'campaign.id', 'campaign_price.campaign_id')
    .select([
      'campaign_price.product_id',
      'campaign_price.customer_kind',
      'campaign_price.price_cents',
      'campaign.valid_from',
      'campaign.valid_to',
    ])
    .where('campaign.store_code', '=', storeCode)
    .where('campaign.is_active', '=', true);
  return Array.isArray(ids) ? query.where('campaign_price.product_id', 'in', ids) : query.where('campaign_price.product_id', '=', ids);
};

/**
 * Reads bases: a page of them with one query per table, a single product (a product page that
 * missed the cache) with the same queries; all prepared, so nothing is built per call. On SQLite
 * from the products' documents in one read instead (product-document.repository.ts).
 */
export function baseReader(database: DatabaseHandle): BaseReader {
  if (database.engine === 'sqlite') return documentBaseReader(database);
  const many = {
    products: preparedListQuery(database, (q, ids: readonly number[]) => productRows(q, ids)),
    inStore: preparedListQuery(database, (q, ids: readonly number[], storeCode: string) => storeRows(q, storeCode, ids)),
    authors: preparedListQuery(database, (q, ids: readonly number[]) => authorRows(q, ids)),
    campaigns: preparedListQuery(database, (q, ids: readonly number[], storeCode: string) => campaignRows(q, storeCode, ids)),
  };
  const one = {
    products: preparedQuery(database, (q, id: number) => productRows(q, id)),
    inStore: preparedQuery(database, (q, storeCode: string, id: number) => storeRows(q, storeCode, id)),
    authors: preparedQuery(database, (q, id: number) => authorRows(q, id)),
    campaigns: preparedQuery(database, (q, storeCode: string, id: number) => campaignRows(q, storeCode, id)),
  };
  return async (storeCode, ids) => {
    if (ids.length === 0) return new Map();
    if (ids.length === 1) {
      const id = ids[0]!;
      const [products, inStore, authors, campaigns] = await Promise.all([
        one.products(id),
        one.inStore(storeCode, id),
        one.authors(id),
        one.campaigns(storeCode, id),
      ]);
      return toBases({ products, inStore, authors, campaigns });
    }
    const [products, inStore, authors, campaigns] = await Promise.all([
      many.products(ids),
      many.inStore(ids, storeCode),
      many.authors(ids),
      many.campaigns(ids, storeCode),
    ]);
    return toBases({ products, inStore, authors, campaigns });
  };
}

/** A company's own prices for the products (wholesale), by product id. */
export async function companyPrices(db: Kysely<Database>, caller: Caller, ids: readonly number[]): Promise<Map<number, number>> {
  if (caller.kind !== 'WHOLESALE' || caller.companyId === null || ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('company_product_price')
    .select(['product_id', 'price_cents'])
    .where('company_id', '=', caller.companyId)
    .where('product_id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.product_id, row.price_cents]));
}
