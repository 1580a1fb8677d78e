import { PostgresAdapter, sql, type Kysely } from 'kysely';

// GET /bought-product grouped every paid order line of the client in the store by product, sorted
// the groups by their last order and counted them again, on every page: a business or library
// customer with thousands of orders paid for all of them each time. bought_product keeps that
// grouping per (client account, store, product): the quantity over its paid orders, how many paid
// lines have it (the row goes when none does), the last paid order that has it and the position of
// its first line there (the line the list shows: its code, title and type). bought_product_page_idx
// is the list's order, so a page is an index range and the total a count over the same range.
//
// Triggers keep it in the transaction of every status change that makes an order count or stop
// counting as paid, whoever writes it: the state machine of this build, a process of the build
// before it during a rolling deploy, a repair by hand. An order that becomes paid adds its lines
// (and becomes the last order of a product only when it is the newest: a late payment of an older
// order leaves a newer one last); one that stops being paid takes them out, a product no paid line
// has goes, and where it was the last order the client's newest paid order with the product takes
// its place. On PostgreSQL each statement of the trigger sees what committed before it, and the
// row locks of its first statement make a concurrent change of the same rows wait: the read of the
// newest paid order comes after them. An order's client, store and lines never change once placed.
const PAID = ['PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING', 'COMPLETED'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // A running release may write meanwhile: an order paid (or given back) after the build read it and before the
  // trigger was there would be counted wrong until its status changed again. Writers of orders wait until the
  // migration's transaction (Kysely's Migrator runs them in one) commits; readers do not (share mode).
  if (postgres) await sql`lock table customer_order, order_line in share mode`.execute(db);
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
  if (postgres) await postgresTriggers(db);
  else await sqliteTriggers(db);
}

const paid = (ref: string) => `${ref}.status in (${PAID.map((status) => `'${status}'`).join(', ')})`;
const mine = `client_account_id = new.client_account_id and store_code = new.store_code`;
const itsProducts = `product_id in (select product_id from order_line where order_id = new.id)`;

/** The order's lines added per product; `newest` picks the larger order id (max on SQLite, greatest on PostgreSQL). */
export const countOrder = (newest: string) => `insert into bought_product
    (client_account_id, store_code, product_id, quantity, line_count, last_order_id, last_position)
  select new.client_account_id, new.store_code, l.product_id, sum(l.quantity), count(*), new.id, min(l.position)
  from order_line l where l.order_id = new.id group by l.product_id order by l.product_id
  on conflict (client_account_id, store_code, product_id) do update set
    quantity = bought_product.quantity + excluded.quantity,
    line_count = bought_product.line_count + excluded.line_count,
    last_position = case when excluded.last_order_id > bought_product.last_order_id
      then excluded.last_position else bought_product.last_position end,
    last_order_id = ${newest}(excluded.last_order_id, bought_product.last_order_id);`;

/** The client's newest paid order in the store with the row's product (the order itself is no longer paid). */
const newestPaidWith = `(select o.id from customer_order o
  where o.client_account_id = new.client_account_id and o.store_code = new.store_code and ${paid('o')}
    and exists (select 1 from order_line l where l.order_id = o.id and l.product_id = bought_product.product_id)
  order by o.id desc limit 1)`;

/** The order's lines taken out: quantities, then rows no paid line has, then the last order where it was this one. */
export const uncountOrder = `update bought_product set
    quantity = quantity - (select sum(l.quantity) from order_line l where l.order_id = new.id and l.product_id = bought_product.product_id),
    line_count = line_count - (select count(*) from order_line l where l.order_id = new.id and l.product_id = bought_product.product_id)
  where ${mine} and ${itsProducts};
  delete from bought_product where ${mine} and ${itsProducts} and line_count <= 0;
  update bought_product set
    last_order_id = ${newestPaidWith},
    last_position = (select min(l.position) from order_line l where l.order_id = ${newestPaidWith} and l.product_id = bought_product.product_id)
  where ${mine} and last_order_id = new.id;`;

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const changed = `after update of status on customer_order when new.client_account_id is not null`;
  await sql
    .raw(`create trigger bought_product_paid ${changed} and ${paid('new')} and not ${paid('old')} begin ${countOrder('max')} end`)
    .execute(db);
  await sql
    .raw(`create trigger bought_product_unpaid ${changed} and ${paid('old')} and not ${paid('new')} begin ${uncountOrder} end`)
    .execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `create function bought_product_status_changed() returns trigger language plpgsql as $$ begin
        if ${paid('new')} and not ${paid('old')} then ${countOrder('greatest')}
        elsif ${paid('old')} and not ${paid('new')} then ${uncountOrder}
        end if;
        return null; end $$`,
    )
    .execute(db);
  await sql`create trigger bought_product_status_changed after update of status on customer_order
    for each row when (new.client_account_id is not null and old.status is distinct from new.status)
    execute function bought_product_status_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists bought_product_status_changed on customer_order`.execute(db);
    await sql`drop function if exists bought_product_status_changed()`.execute(db);
  } else {
    await sql`drop trigger if exists bought_product_paid`.execute(db);
    await sql`drop trigger if exists bought_product_unpaid`.execute(db);
  }
  await db.schema.dropTable('bought_product').execute();
}
