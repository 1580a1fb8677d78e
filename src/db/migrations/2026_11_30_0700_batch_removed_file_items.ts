import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A removed product file (format) took every holder's item of it off the download list (download_item,
// migration 2026_11_28_0600) from its delete trigger: one statement, in the removal's transaction, of
// as many rows as the product has purchases and held takes (100,000 for a best seller), holding
// SQLite's write lock throughout. The trigger now removes none: the removal (downloads'
// removeProductFile) queues a job (DOWNLOAD_FILE_REMOVAL_JOB) that deletes them in pages of
// DOWNLOAD_ITEMS_BATCH by download_item_file_idx. The file's row goes at once, so no link is made
// for it and none is served; the list and its count read an item with its file (a product_file row),
// so the items left until the job ran are not shown, as before.
//
// On PostgreSQL the delete takes the product's exclusive lock (LOCK_SPACE of migration 0600), which a
// purchase or take takes shared in its own trigger and the new-file job takes for each page: a grant
// or page written while the file is removed either commits first (the job, queued with the removal,
// then deletes its item) or waits and then no longer sees the file. An update of a file's id or
// product keeps its statements, as in migration 2026_11_30_0410.

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

const fileFunction = (deleteBody: string) =>
  sql.raw(`create or replace function download_item_file_changed() returns trigger language plpgsql as $$ begin
    if tg_op = 'UPDATE' then ${dropFile('old')} ${lock('new.product_id')} ${fileItems('new')} end if;
    if tg_op = 'INSERT' then ${lock('new.product_id')} end if;
    if tg_op = 'DELETE' then ${deleteBody} end if;
    return null; end $$`);

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await fileFunction(lock('old.product_id')).execute(db);
  // SQLite runs one writer at a time: a grant's trigger and the job's pages see every committed removal.
  else await sql`drop trigger download_item_file_delete`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await fileFunction(dropFile('old')).execute(db);
  else await sql.raw(`create trigger download_item_file_delete after delete on product_file begin ${dropFile('old')} end`).execute(db);
}
