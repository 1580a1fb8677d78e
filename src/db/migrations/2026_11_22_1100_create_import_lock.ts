import type { Kysely } from 'kysely';

// One row per import kind while an import of it runs (any process: the CLI or an API process), so
// that imports of one kind never overlap. A row whose holder stopped renewing it (a crashed
// process) is taken over once it has expired.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_lock')
    .addColumn('kind', 'varchar(40)', (c) => c.primaryKey())
    // Random per run: only the holder renews or removes the row.
    .addColumn('owner', 'varchar(64)', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_lock').execute();
}
