import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { isPostgres } from '../../db/row-lock.js';
import type { PageRequest } from '../../http/paging.js';
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
  digital: boolean;
  quantity: number;
  lastBoughtAt: number;
  orderCode: string;
  entitled: boolean;
}

/**
 * One page of the products the client has bought in paid orders, the most recently bought first:
 * the quantity over all those orders, and the code, title and type as the latest order has them.
 * A range of bought_product_page_idx (client, store, last order desc, product), kept by the state
 * machine (countPaidOrder, uncountPaidOrder); the page's rows then look up their last order and its
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
      digital: Boolean(row.is_digital),
      quantity: Number(row.quantity),
      lastBoughtAt: Number(row.created_at),
      orderCode: row.order_code ?? '',
      entitled: Boolean(row.entitled),
    })),
    total: Number(total.total),
  };
}

// bought_product is kept by the order state machine (order-states.ts), in the transaction of the
// status change, under the order's lock: an order that enters PAID_STATUSES is counted, one that
// leaves them is taken out. Orders of guests (no client account) are not kept. On PostgreSQL two
// orders of one client changing at once meet at the rows' locks, which both take in product order.

/**
 * Counts an order that has just become paid in its client's bought products: per product, its
 * quantity and lines are added, and it becomes the last order that has the product (with its first
 * line there) when it is the newest: a late payment of an older order leaves a newer one last. One
 * statement, in product order.
 */
export async function countPaidOrder(trx: Db, orderId: number): Promise<void> {
  const newer = sql<boolean>`excluded.last_order_id > bought_product.last_order_id`;
  await trx
    .insertInto('bought_product')
    .columns(['client_account_id', 'store_code', 'product_id', 'quantity', 'line_count', 'last_order_id', 'last_position'])
    .expression(
      trx
        .selectFrom('customer_order as o')
        .innerJoin('order_line as l', 'l.order_id', 'o.id')
        .select((eb) => [
          sql<number>`o.client_account_id`.as('client_account_id'),
          'o.store_code',
          'l.product_id',
          eb.fn.sum<number>('l.quantity').as('quantity'),
          eb.fn.countAll<number>().as('line_count'),
          'o.id',
          eb.fn.min('l.position').as('last_position'),
        ])
        .where('o.id', '=', orderId)
        .where('o.client_account_id', 'is not', null)
        .groupBy(['o.id', 'o.client_account_id', 'o.store_code', 'l.product_id'])
        .orderBy('l.product_id'),
    )
    .onConflict((conflict) =>
      conflict.columns(['client_account_id', 'store_code', 'product_id']).doUpdateSet({
        quantity: sql<number>`bought_product.quantity + excluded.quantity`,
        line_count: sql<number>`bought_product.line_count + excluded.line_count`,
        // Both read the row as it was before this update.
        last_order_id: sql<number>`case when ${newer} then excluded.last_order_id else bought_product.last_order_id end`,
        last_position: sql<number>`case when ${newer} then excluded.last_position else bought_product.last_position end`,
      }),
    )
    .execute();
}

/**
 * Takes an order that is no longer paid out of its client's bought products, product by product in
 * product order: its quantity and lines come off; a product no paid line has any more goes; where
 * it was the last order of a product, the client's newest paid order before it with the product is
 * (a walk down customer_order_client_idx from the order, stopping at the first). That read comes
 * after the row's lock: an order paid meanwhile by another transaction is either committed and
 * seen, or adds itself after this commits (countPaidOrder keeps the newer last order).
 */
export async function uncountPaidOrder(trx: Db, orderId: number): Promise<void> {
  const order = await trx
    .selectFrom('customer_order')
    .select(['client_account_id', 'store_code'])
    .where('id', '=', orderId)
    .executeTakeFirst();
  if (!order || order.client_account_id === null) return;
  const clientAccountId = Number(order.client_account_id);
  const storeCode = order.store_code;
  const products = await trx
    .selectFrom('order_line')
    .select((eb) => ['product_id', eb.fn.sum<number | string>('quantity').as('quantity'), eb.fn.countAll<number | string>().as('lines')])
    .where('order_id', '=', orderId)
    .groupBy('product_id')
    .orderBy('product_id')
    .execute();
  for (const line of products) {
    const productId = Number(line.product_id);
    const row = { client: clientAccountId, store: storeCode, product: productId };
    const left = await trx
      .updateTable('bought_product')
      .set({
        quantity: sql<number>`quantity - ${Number(line.quantity)}`,
        line_count: sql<number>`line_count - ${Number(line.lines)}`,
      })
      .where('client_account_id', '=', row.client)
      .where('store_code', '=', row.store)
      .where('product_id', '=', row.product)
      .returning(['line_count', 'last_order_id'])
      .executeTakeFirst();
    // Not counted: an order the state machine did not make paid (none is).
    if (!left) continue;
    const previous =
      Number(left.line_count) > 0 && Number(left.last_order_id) === orderId
        ? await previousPaidOrderWith(trx, row.client, row.store, row.product, orderId)
        : undefined;
    if (Number(left.line_count) <= 0 || previous === null) await removeBought(trx, row);
    else if (previous !== undefined)
      await trx
        .updateTable('bought_product')
        .set({ last_order_id: previous.id, last_position: previous.position })
        .where('client_account_id', '=', row.client)
        .where('store_code', '=', row.store)
        .where('product_id', '=', row.product)
        .execute();
  }
}

/**
 * The client's newest paid order in the store before `before` that has the product, with the
 * product's first line there; null when none.
 */
async function previousPaidOrderWith(trx: Db, clientAccountId: number, storeCode: string, productId: number, before: number) {
  const found = await trx
    .selectFrom('customer_order as o')
    .select('o.id')
    .where('o.client_account_id', '=', clientAccountId)
    .where('o.store_code', '=', storeCode)
    .where('o.id', '<', before)
    .where('o.status', 'in', [...PAID_STATUSES])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('order_line as l')
          .select(sql.lit(1).as('one'))
          .whereRef('l.order_id', '=', 'o.id')
          .where('l.product_id', '=', productId),
      ),
    )
    .orderBy('o.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!found) return null;
  const first = await trx
    .selectFrom('order_line')
    .select((eb) => eb.fn.min('position').as('position'))
    .where('order_id', '=', found.id)
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow();
  return { id: Number(found.id), position: Number(first.position) };
}

function removeBought(trx: Db, row: { client: number; store: string; product: number }) {
  return trx
    .deleteFrom('bought_product')
    .where('client_account_id', '=', row.client)
    .where('store_code', '=', row.store)
    .where('product_id', '=', row.product)
    .execute();
}

/**
 * Builds bought_product again from the orders, in the caller's transaction; answers how many rows it
 * holds. Only this build's state machine keeps it, so orders that processes of an earlier build moved
 * after migration 0610 are missing from it or counted wrongly (docs/deployment.md: `storefront
 * orders rebuild-bought-products` once they are gone). On PostgreSQL the table is locked first: a
 * status change that has written to it has committed before the orders are read, and one that has
 * not waits and adds itself to the rebuilt rows.
 */
export async function rebuildBoughtProducts(trx: Db): Promise<number> {
  if (isPostgres(trx)) await sql`lock table bought_product in exclusive mode`.execute(trx);
  await trx.deleteFrom('bought_product').execute();
  await sql`insert into bought_product (client_account_id, store_code, product_id, quantity, line_count, last_order_id, last_position)
    select b.client_account_id, b.store_code, b.product_id, b.quantity, b.line_count, b.last_order_id,
      (select min(l.position) from order_line l where l.order_id = b.last_order_id and l.product_id = b.product_id)
    from (select o.client_account_id, o.store_code, l.product_id, sum(l.quantity) as quantity, count(*) as line_count,
        max(o.id) as last_order_id
      from order_line l join customer_order o on o.id = l.order_id
      where o.client_account_id is not null and o.status in (${sql.join([...PAID_STATUSES])})
      group by o.client_account_id, o.store_code, l.product_id) b`.execute(trx);
  const counted = await trx
    .selectFrom('bought_product')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}
