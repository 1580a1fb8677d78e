import type { Kysely } from 'kysely';

// One row per periodic task while a run of it is under way (the order sweep, later others), so a
// periodic task never runs twice at once over every worker process sharing the database. A row
// whose holder stopped renewing it (a crashed process) is taken over once it has expired.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_lease')
    .addColumn('name', 'varchar(40)', (c) => c.primaryKey())
    // Random per run: only the holder renews or removes the row.
    .addColumn('owner', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_lease').execute();
}
