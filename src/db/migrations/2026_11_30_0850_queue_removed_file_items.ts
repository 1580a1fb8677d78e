import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Since migration 2026_11_30_0700 a removed product file's download items (download_item) are
// deleted by a job (downloads.file-removal) in pages, and only removeProductFile queued it: a row
// deleted by hand (`delete from product_file where ...` in psql or sqlite3, a repair script) left
// its holders' items in the table for good, hidden (the list reads an item with its file) but
// never deleted. The delete of a file's row now queues the job itself, in the deleting transaction,
// whoever deletes it; removeProductFile no longer queues it, so its removal still queues one job.
// The job is written as enqueueJob writes it (src/infra/jobs/queue.ts): pending, no attempt yet,
// 10 attempts (download-items.jobs.ts), due at once, the payload `{"fileId":<id>}`; the time is the
// database's (Unix ms), which is the wall clock the worker compares run_at with.
//
// The items of files deleted by hand before this migration get their job too: one per file id left
// in download_item without its file (read by download_item_file_idx, once).
//
// On PostgreSQL the delete keeps taking the product's exclusive lock first (migration 0700), so the
// job is queued after every grant or new-file page that holds it shared has committed or waits.

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

/** The removal job of file `fileId` (an SQL expression), due at `now` (an SQL expression, Unix ms). */
const removalJob = (fileId: string, now: string) =>
  `select 'downloads.file-removal', '{"fileId":' || ${fileId} || '}', 'pending', 0, ${ATTEMPTS}, ${now}, null, null, null, ${now}, ${now}`;
const PG_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
const SQLITE_NOW = "cast((julianday('now') - 2440587.5) * 86400000 as integer)";

const fileFunction = (deleteBody: string) =>
  sql.raw(`create or replace function download_item_file_changed() returns trigger language plpgsql as $$ begin
    if tg_op = 'UPDATE' then ${dropFile('old')} ${lock('new.product_id')} ${fileItems('new')} end if;
    if tg_op = 'INSERT' then ${lock('new.product_id')} end if;
    if tg_op = 'DELETE' then ${deleteBody} end if;
    return null; end $$`);

/** The files that have items but no row any more: removed by hand before the trigger queued their job. */
const orphanedFiles = `select distinct d.file_id from download_item d where not exists (select 1 from product_file f where f.id = d.file_id)`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await fileFunction(`${lock('old.product_id')} insert into job (${JOB_COLUMNS}) ${removalJob('old.id', PG_NOW)};`).execute(db);
  } else {
    await sql
      .raw(
        `create trigger download_item_file_removed after delete on product_file begin
          insert into job (${JOB_COLUMNS}) ${removalJob('old.id', SQLITE_NOW)}; end`,
      )
      .execute(db);
  }
  await sql
    .raw(`insert into job (${JOB_COLUMNS}) ${removalJob('o.file_id', postgres ? PG_NOW : SQLITE_NOW)} from (${orphanedFiles}) o`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await fileFunction(lock('old.product_id')).execute(db);
  else await sql`drop trigger download_item_file_removed`.execute(db);
}
