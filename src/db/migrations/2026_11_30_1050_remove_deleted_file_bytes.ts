import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Since migration 2026_11_30_0850 the delete of a product_file row queues the removal of its holders'
// download items (downloads.file-removal), whoever deletes it. Its stored bytes went only when
// removeProductFile deleted them after its own delete: a row deleted by hand (psql, sqlite3, a repair
// script) left its file in the store (the local disk or the bucket) for good, and once the row is gone
// nothing knew its key. The trigger's job now carries the key, `{"fileId":<id>,"storageKey":"<key>"}`
// (the key as a JSON string, to_json / json_quote: a key written by hand may hold any character),
// and the job deletes the stored file when no product_file row refers to that key any more
// (download-items.jobs.ts). product_file_storage_key_idx serves that question.
//
// The job is written as before otherwise (0850): pending, 10 attempts, due at the database's clock;
// removeProductFile then sets its times to the application's (download-items.repository.ts,
// stampRemovalJob). On PostgreSQL the delete keeps taking the product's exclusive lock first.

const LOCK_SPACE = 2_811_280;
const ATTEMPTS = 10;
const COLUMNS = 'order_id, take_id, file_id, product_id, client_account_id, store_code, granted_at, subscription_id';
const JOB_COLUMNS = 'type, payload, status, attempts, max_attempts, run_at, locked_until, last_error, result, created_at, updated_at';
const fileItems = (ref: string) => `insert into download_item (${COLUMNS})
  select e.order_id, 0, ${ref}.id, e.product_id, e.client_account_id, o.store_code, e.created_at, null
  from order_entitlement e join customer_order o on o.id = e.order_id
  where e.product_id = ${ref}.product_id and e.client_account_id is not null;
  insert into download_item (${COLUMNS})
  select 0, t.id, ${ref}.id, t.product_id, t.client_account_id, t.store_code, t.created_at, t.subscription_id
  from subscription_take t where t.product_id = ${ref}.product_id and t.held_key is not null;`;
const dropFile = (ref: string) => `delete from download_item where file_id = ${ref}.id;`;
const lock = (id: string) => `perform pg_advisory_xact_lock(${LOCK_SPACE}, (${id} % 2147483647)::int);`;

/** The removal job of the deleted row `old`: its payload (an SQL expression) and the time (Unix ms). */
const removalJob = (payload: string, now: string) =>
  `select 'downloads.file-removal', ${payload}, 'pending', 0, ${ATTEMPTS}, ${now}, null, null, null, ${now}, ${now}`;
const PG_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
const SQLITE_NOW = "cast((julianday('now') - 2440587.5) * 86400000 as integer)";
const PG_PAYLOAD = `'{"fileId":' || old.id || ',"storageKey":' || to_json(old.storage_key::text)::text || '}'`;
const SQLITE_PAYLOAD = `'{"fileId":' || old.id || ',"storageKey":' || json_quote(old.storage_key) || '}'`;
// 0850's, for down.
const PG_OLD_PAYLOAD = `'{"fileId":' || old.id || '}'`;

const fileFunction = (deleteBody: string) =>
  sql.raw(`create or replace function download_item_file_changed() returns trigger language plpgsql as $$ begin
    if tg_op = 'UPDATE' then ${dropFile('old')} ${lock('new.product_id')} ${fileItems('new')} end if;
    if tg_op = 'INSERT' then ${lock('new.product_id')} end if;
    if tg_op = 'DELETE' then ${deleteBody} end if;
    return null; end $$`);

const sqliteTrigger = (payload: string) =>
  sql.raw(`create trigger download_item_file_removed after delete on product_file begin
    insert into job (${JOB_COLUMNS}) ${removalJob(payload, SQLITE_NOW)}; end`);

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('product_file_storage_key_idx').on('product_file').column('storage_key').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await fileFunction(`${lock('old.product_id')} insert into job (${JOB_COLUMNS}) ${removalJob(PG_PAYLOAD, PG_NOW)};`).execute(db);
  } else {
    await sql`drop trigger download_item_file_removed`.execute(db);
    await sqliteTrigger(SQLITE_PAYLOAD).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await fileFunction(`${lock('old.product_id')} insert into job (${JOB_COLUMNS}) ${removalJob(PG_OLD_PAYLOAD, PG_NOW)};`).execute(db);
  } else {
    await sql`drop trigger download_item_file_removed`.execute(db);
    await sqliteTrigger(`'{"fileId":' || old.id || '}'`).execute(db);
  }
  await db.schema.dropIndex('product_file_storage_key_idx').execute();
}
