import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

// The SQL of the sales-history import (sales-history-import.ts holds its rules).

export type NewSale = Insertable<Database['sales_history']>;

export function findSaleByOrder(trx: Transaction<Database>, orderCode: string) {
  return trx.selectFrom('sales_history').select(['id', 'created_nav']).where('order_code', '=', orderCode).executeTakeFirst();
}

export async function setSaleCreatedNav(trx: Transaction<Database>, id: number, createdNav: number): Promise<void> {
  await trx.updateTable('sales_history').set({ created_nav: createdNav }).where('id', '=', id).execute();
}

/** Stores an order and its lines (product codes, in order). */
export async function insertSale(trx: Transaction<Database>, sale: NewSale, productCodes: readonly string[]): Promise<void> {
  const inserted = await trx.insertInto('sales_history').values(sale).returning('id').executeTakeFirstOrThrow();
  await trx
    .insertInto('sales_history_item')
    .values(productCodes.map((product, position) => ({ sales_history_id: inserted.id, position, product_code: product })))
    .execute();
}
