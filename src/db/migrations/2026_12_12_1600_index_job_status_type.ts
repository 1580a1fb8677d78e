import type { Kysely } from 'kysely';

// /metrics reads the outbox per job type at every scrape (queue.ts: jobBacklog): the pending,
// running and dead jobs counted by status and type, and each type's oldest due run_at. With
// (status, run_at) alone each of those rows was read from the table for its type; this index holds
// every column the statement reads, so it walks the three statuses' entries and no row (done jobs,
// 30 days of them, are not among them).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('job_status_type_run_at_idx').on('job').columns(['status', 'type', 'run_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('job_status_type_run_at_idx').execute();
}
