import { PostgresAdapter, sql, type Kysely } from 'kysely';

// GET /bought-product grouped every paid order line of the client in the store by product, sorted
// the groups by their last order and counted them again, on every page: a business or library
// customer with thousands of orders paid for all of them each time. bought_product keeps that
// grouping per (client account, store, product): the quantity over its paid orders, how many paid
// lines have it (the row goes when none does), the last paid order that has it and the position of
// its first line there (the line the list shows: its code, title and type). The order state
// machine keeps it (modules/orders/order-states.ts, in the transaction of each status change that
// makes an order count or stop counting as paid); here it is filled from the orders as they are.
// bought_product_page_idx is the list's order, so a page is an index range and the total a count
// over the same range.
const PAID = ['PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING', 'COMPLETED'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('bought_product')
    .addColumn('client_account_id', 'bigint', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('line_count', 'integer', (c) => c.notNull())
    .addColumn('last_order_id', 'bigint', (c) => c.notNull())
    .addColumn('last_position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('bought_product_pk', ['client_account_id', 'store_code', 'product_id'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();
  await db.schema
    .createIndex('bought_product_page_idx')
    .on('bought_product')
    .columns(['client_account_id', 'store_code', 'last_order_id desc', 'product_id'])
    .execute();
  await sql`insert into bought_product (client_account_id, store_code, product_id, quantity, line_count, last_order_id, last_position)
    select o.client_account_id, o.store_code, l.product_id, sum(l.quantity), count(*), max(o.id), 0
    from order_line l join customer_order o on o.id = l.order_id
    where o.client_account_id is not null and o.status in (${sql.join(PAID)})
    group by o.client_account_id, o.store_code, l.product_id`.execute(db);
  await sql`update bought_product set last_position = (select min(l.position) from order_line l
    where l.order_id = bought_product.last_order_id and l.product_id = bought_product.product_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bought_product').execute();
}
