import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';
import { isDownloadLine } from './download-lines.js';
import { normaliseOrder, type OrderRow } from './orders.repository.js';
import type { OrderStatus } from './orders.tables.js';

// A client's orders and purchase history in one store. The orders walk customer_order_client_idx
// (client_account_id, store_code, id) newest first, and order_line by its key (order_id, position);
// the purchase history is kept per product in bought_product (below).

/** Paid orders: what the buyer has bought (not an unpaid, failed or cancelled one). */
export const PAID_STATUSES: readonly OrderStatus[] = ['PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING', 'COMPLETED'];

export interface OrderOwner {
  clientAccountId: number;
  storeCode: string;
}

/** One page of the client's orders, newest first, each with its item count (one grouped query for the page). */
export async function clientOrderPage(db: Db, owner: OrderOwner, page: PageRequest) {
  const mine = db
    .selectFrom('customer_order')
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode);
  const [rows, total] = await Promise.all([
    mine.selectAll().orderBy('id', 'desc').limit(page.perPage).offset(page.offset).execute(),
    mine.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const orders = rows.map(normaliseOrder);
  const counts = new Map<number, number>();
  if (orders.length > 0) {
    const grouped = await db
      .selectFrom('order_line')
      .select(['order_id', (eb) => eb.fn.sum<number | string>('quantity').as('items')])
      .where(
        'order_id',
        'in',
        orders.map((order) => order.id),
      )
      .groupBy('order_id')
      .execute();
    for (const row of grouped) counts.set(Number(row.order_id), Number(row.items));
  }
  return {
    rows: orders.map((order): OrderRow & { item_count: number } => ({ ...order, item_count: counts.get(order.id) ?? 0 })),
    total: Number(total.total),
  };
}

export interface BoughtProductRow {
  productId: number;
  code: string;
  title: string;
  type: string;
  /** Whether it is something to download (isDownloadLine): a virtual gift card is digital, but none. */
  download: boolean;
  quantity: number;
  lastBoughtAt: number;
  orderCode: string;
  entitled: boolean;
}

/**
 * One page of the products the client has bought in paid orders, the most recently bought first:
 * the quantity over all those orders, and the code, title and type as the latest order has them.
 * A range of bought_product_page_idx (client, store, last order desc, product), kept by triggers on
 * the orders' status (migration 2026_11_28_0610); the page's rows then look up their last order and its
 * line by their keys. The total is a count over the same range.
 */
export async function boughtProductPage(db: Db, owner: OrderOwner, page: PageRequest) {
  const mine = db
    .selectFrom('bought_product as b')
    .where('b.client_account_id', '=', owner.clientAccountId)
    .where('b.store_code', '=', owner.storeCode);
  const [rows, total] = await Promise.all([
    mine
      .innerJoin('customer_order as o', 'o.id', 'b.last_order_id')
      // The product's first line in that order, kept with it (an order has one line per product; the key decides if not).
      .innerJoin('order_line as l', (join) => join.onRef('l.order_id', '=', 'b.last_order_id').onRef('l.position', '=', 'b.last_position'))
      .select([
        'b.product_id',
        'b.quantity',
        'o.code as order_code',
        'o.created_at',
        'l.product_code',
        'l.title',
        'l.product_type',
        'l.is_digital',
        (eb) =>
          eb
            .exists(
              eb
                .selectFrom('order_entitlement as e')
                .select(sql.lit(1).as('one'))
                .where('e.client_account_id', '=', owner.clientAccountId)
                .whereRef('e.product_id', '=', 'b.product_id'),
            )
            .as('entitled'),
      ])
      .orderBy('b.last_order_id', 'desc')
      .orderBy('b.product_id')
      .limit(page.perPage)
      .offset(page.offset)
      .execute(),
    mine.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row): BoughtProductRow => ({
      productId: Number(row.product_id),
      code: row.product_code,
      title: row.title,
      type: row.product_type,
      download: isDownloadLine(row),
      quantity: Number(row.quantity),
      lastBoughtAt: Number(row.created_at),
      orderCode: row.order_code ?? '',
      entitled: Boolean(row.entitled),
    })),
    total: Number(total.total),
  };
}
