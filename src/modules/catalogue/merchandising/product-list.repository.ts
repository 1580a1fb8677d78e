import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Language } from '../../../i18n/index.js';
import type { Caller } from '../caller.js';
import { listByIdOrCode, pageOfLists, type ByIdOrCode } from './store-list.repository.js';
import { translatedName, withTranslations } from '../translated.js';
import { visibleProduct } from '../visibility.js';

export interface ProductListRow {
  id: number;
  code: string;
  name: string;
}

/** The store's active product lists with their names in the language (et as fallback). */
function shownLists(db: Kysely<Database>, storeCode: string, language: Language) {
  const lists = db.selectFrom('product_list as l').where('l.store_code', '=', storeCode).where('l.is_active', '=', true);
  return withTranslations(lists, 'product_list_name', 'l.id', language).select([
    'l.id',
    'l.code',
    'asked.name as name',
    'et.name as et_name',
  ]);
}

const toRow = (row: { id: number; code: string; name: string | null; et_name: string | null }): ProductListRow => ({
  id: row.id,
  code: row.code,
  name: translatedName(row),
});

export async function listProductLists(
  db: Kysely<Database>,
  storeCode: string,
  language: Language,
  offset: number,
  limit: number,
): Promise<{ rows: ProductListRow[]; total: number }> {
  const { rows, total } = await pageOfLists(shownLists(db, storeCode, language), 'l', offset, limit);
  return { rows: rows.map(toRow), total };
}

export async function findProductList(
  db: Kysely<Database>,
  storeCode: string,
  language: Language,
  by: ByIdOrCode,
): Promise<ProductListRow | undefined> {
  const row = await listByIdOrCode(shownLists(db, storeCode, language), 'l', by);
  return row && toRow(row);
}

/** How many products of each list the caller may see (what the list's product page counts). */
export async function productListCounts(
  db: Kysely<Database>,
  storeCode: string,
  caller: Caller,
  listIds: number[],
): Promise<Map<number, number>> {
  if (listIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('product_list_item as i')
    .innerJoin('product as p', 'p.id', 'i.product_id')
    .select(['i.product_list_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('i.product_list_id', 'in', listIds)
    .where(visibleProduct(storeCode, caller))
    .groupBy('i.product_list_id')
    .execute();
  return new Map(rows.map((row) => [row.product_list_id, Number(row.n)]));
}
