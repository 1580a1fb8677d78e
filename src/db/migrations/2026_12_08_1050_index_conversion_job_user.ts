import { PostgresAdapter, sql, type Kysely } from 'kysely';

// The CompleteRegistration job (modules/marketing) carries the hash of the person's email and their
// user id, and the outbox keeps it 30 days once sent, a dead one for good. The erasure finds the
// person's by the user id: job_email lists only a payload's addresses, and the job names none. A
// partial index of that job type alone, on the same expression the look-up writes
// (marketing.repository.ts: conversionJobsOfUser).
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create index job_conversion_user_idx on job (((payload::jsonb ->> 'userId')))
      where type = 'marketing.complete-registration'`.execute(db);
  } else {
    await sql`create index job_conversion_user_idx on job (json_extract(payload, '$.userId'))
      where type = 'marketing.complete-registration'`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('job_conversion_user_idx').execute();
}
