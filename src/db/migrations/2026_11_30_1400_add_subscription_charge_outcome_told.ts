import type { Kysely } from 'kysely';

// A charge the customer waits for (a first month, an upgrade) was mailed its outcome only when the
// request had told the customer it was pending: a request that died after the gateway took the charge
// (or before it answered) told nothing, and nothing was mailed either. A charge now records when its
// customer was told its outcome otherwise than by the mail of the transaction that finished it (the
// request's answer, 201, 200 or 409; a late settle's mail): a job queued with the charge, due once the
// request must have answered, mails the outcome when neither that nor "pending" was told. Earlier rows
// have none, and no such job.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('outcome_told_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('outcome_told_at').execute();
}
