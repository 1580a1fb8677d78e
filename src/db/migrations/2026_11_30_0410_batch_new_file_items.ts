import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A new product file (format) gave every holder of its product an item of the download list
// (download_item, migration 2026_11_28_0600) from its insert trigger: one statement, in the upload's
// transaction, of as many rows as the product has purchases and held takes (100,000 for a best
// seller). The trigger now adds none; the upload queues a job (downloads' DOWNLOAD_FILE_ITEMS_JOB)
// that adds them in pages of holders by key, each page its own statement of at most
// DOWNLOAD_ITEMS_BATCH rows, and that adds nothing twice. The indexes below give those pages in
// key order (migration 0600's product_id indexes stay: its down removes them).
//
// On PostgreSQL the insert still takes the product's exclusive lock (LOCK_SPACE, as before), which a
// purchase or take of the product takes shared in its own trigger: a grant committing while the file
// is written either waits for the file (then its trigger adds the new file's item) or the file waits
// for it (then the job, queued with the file, reads the grant). A change of a file's id or product
// and a removal keep their statements: the service makes neither.

const LOCK_SPACE = 2_811_280;
const COLUMNS = 'order_id, take_id, file_id, product_id, client_account_id, store_code, granted_at, subscription_id';
const fileItems = (ref: string) => `insert into download_item (${COLUMNS})
  select e.order_id, 0, ${ref}.id, e.product_id, e.client_account_id, o.store_code, e.created_at, null
  from order_entitlement e join customer_order o on o.id = e.order_id
  where e.product_id = ${ref}.product_id and e.client_account_id is not null;
  insert into download_item (${COLUMNS})
  select 0, t.id, ${ref}.id, t.product_id, t.client_account_id, t.store_code, t.created_at, t.subscription_id
  from subscription_take t where t.product_id = ${ref}.product_id and t.held_key is not null;`;
const dropFile = (ref: string) => `delete from download_item where file_id = ${ref}.id;`;
const lock = (id: string) => `perform pg_advisory_xact_lock(${LOCK_SPACE}, (${id} % 2147483647)::int);`;

const fileFunction = (insertBody: string) =>
  sql.raw(`create or replace function download_item_file_changed() returns trigger language plpgsql as $$ begin
    if tg_op <> 'INSERT' then ${dropFile('old')} end if;
    if tg_op = 'UPDATE' then ${lock('new.product_id')} ${fileItems('new')} end if;
    if tg_op = 'INSERT' then ${insertBody} end if;
    return null; end $$`);

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('order_entitlement_product_order_idx').on('order_entitlement').columns(['product_id', 'order_id']).execute();
  await db.schema
    .createIndex('subscription_take_product_held_idx')
    .on('subscription_take')
    .columns(['product_id', 'id'])
    .where(sql.raw<boolean>('held_key is not null'))
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await fileFunction(lock('new.product_id')).execute(db);
  // SQLite runs one writer at a time: a grant's trigger sees every committed file, the job every committed grant.
  else await sql`drop trigger download_item_file_insert`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await fileFunction(`${lock('new.product_id')} ${fileItems('new')}`).execute(db);
  else await sql.raw(`create trigger download_item_file_insert after insert on product_file begin ${fileItems('new')} end`).execute(db);
  await db.schema.dropIndex('subscription_take_product_held_idx').execute();
  await db.schema.dropIndex('order_entitlement_product_order_idx').execute();
}
