import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { movedTo } from './online-sales.js';

// The SQL of the sales-history import (sales-history-import.ts holds its rules).

export type NewSale = Insertable<Database['sales_history']>;

export function findSaleByOrder(trx: Transaction<Database>, orderCode: string) {
  return trx.selectFrom('sales_history').select(['id', 'created_nav']).where('order_code', '=', orderCode).executeTakeFirst();
}

export async function setSaleCreatedNav(trx: Transaction<Database>, id: number, createdNav: number, now: number): Promise<void> {
  await trx
    .updateTable('sales_history')
    .set({ created_nav: createdNav, updated_at: movedTo(now) })
    .where('id', '=', id)
    .execute();
}

/**
 * Stores an order and its lines (product codes, in order); false (nothing written) when a row of
 * the order code appeared meanwhile (the web shop's own row of an order it processed just now).
 */
export async function insertSale(trx: Transaction<Database>, sale: NewSale, productCodes: readonly string[]): Promise<boolean> {
  const inserted = await trx
    .insertInto('sales_history')
    .values(sale)
    .onConflict((oc) => oc.column('order_code').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return false;
  await trx
    .insertInto('sales_history_item')
    .values(productCodes.map((product, position) => ({ sales_history_id: inserted.id, position, product_code: product })))
    .execute();
  return true;
}
