import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ERASED_MARKER } from '../../infra/personal-data.js';

// The web shop's own orders in the sales history, written by the orders module when it processes
// an order (sourceType ONLINE). order_code is unique: the row is written once, and the back
// office's later import of the same order only fills createdNav (sales-history-import.ts).

export interface OnlineSale {
  orderCode: string;
  clientCode: string;
  clientType: 'PYSIKLIENT' | 'ETTEVOTE';
  city: string;
  sessionId: string | null;
  deliveryMethod: string;
  shopCode: string | null;
  /** The order's product codes, line by line. */
  products: readonly string[];
  createdAt: number;
  /** The back office's own order time, when it has reported it already (a paid order it saw before its processing). */
  createdNav: number | null;
}

/** Writes the order's row and items in the caller's transaction; false when the order already has one. */
export async function recordOnlineSale(trx: Db, sale: OnlineSale): Promise<boolean> {
  const inserted = await trx
    .insertInto('sales_history')
    .values({
      order_code: sale.orderCode,
      client_code: sale.clientCode.slice(0, 20),
      client_type: sale.clientType,
      source_type: 'ONLINE',
      city: sale.city.slice(0, 100),
      session_id: sale.sessionId,
      delivery_method: sale.deliveryMethod.slice(0, 60),
      shop_code: sale.shopCode,
      created_at: sale.createdAt,
      created_nav: sale.createdNav,
      updated_at: sale.createdAt,
    })
    .onConflict((oc) => oc.column('order_code').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return false;
  if (sale.products.length > 0)
    await trx
      .insertInto('sales_history_item')
      .values(sale.products.map((product_code, position) => ({ sales_history_id: inserted.id, position, product_code })))
      .execute();
  return true;
}

/** The row's update time moves with what its export item shows, never backwards (a later write may have stamped it). */
export const movedTo = (now: number) => sql<number>`case when updated_at < ${now} then ${now} else updated_at end`;

/**
 * Fills the back office's own order time of an order's row (the same time again changes nothing);
 * false when the order has no row.
 */
export async function setSaleCreatedNavByOrder(trx: Db, orderCode: string, createdNav: number, now: number): Promise<boolean> {
  const found = await trx.selectFrom('sales_history').select('id').where('order_code', '=', orderCode).executeTakeFirst();
  if (found === undefined) return false;
  await trx
    .updateTable('sales_history')
    .set({ created_nav: createdNav, updated_at: movedTo(now) })
    .where('id', '=', found.id)
    .where((eb) => eb.or([eb('created_nav', 'is', null), eb('created_nav', '!=', createdNav)]))
    .execute();
  return true;
}

/**
 * Takes the person out of these orders' rows (the orders module's erasure, which empties the
 * orders themselves): the city and the session, as the erasure by client code does
 * (data-export.personal-data.ts). A guest order billed to the person's email has the GUEST code,
 * which that erasure never finds.
 */
export async function eraseSalesOfOrders(trx: Db, orderCodes: readonly string[], now: number): Promise<void> {
  if (orderCodes.length === 0) return;
  await trx
    .updateTable('sales_history')
    .set({ city: ERASED_MARKER, session_id: null, updated_at: movedTo(now) })
    .where('order_code', 'in', orderCodes)
    .execute();
}
