import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// The transactional outbox: a mail or job is a row written in the same transaction as the state
// change that causes it, and workers run it afterwards.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('type', 'varchar(100)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('result', 'varchar(100)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Workers look for due pending jobs, and for running ones whose worker died (lock expired).
  await db.schema.createIndex('job_status_run_at_idx').on('job').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('job_status_locked_until_idx').on('job').columns(['status', 'locked_until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job').execute();
}
