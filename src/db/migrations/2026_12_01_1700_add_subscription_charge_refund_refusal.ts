import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A refund_due charge whose refund the gateway refuses as asked (EveryPay's 422: the payment can no
// longer be refunded, the amount is wrong), the payment still settled when looked up again, was sent
// again by its job and every billing run, for good. Such a charge now becomes refund_refused, keeping
// the gateway's refusal and its time, for the operator (`subscription charges --refund-refused`,
// then `mark-refunded` or `retry-refund`).
//
// The state column is varchar(12) on PostgreSQL, too short for refund_refused (14): widened to 20, a
// change of the column's declared length only (no rewrite of the table or its index). SQLite does not
// enforce a varchar's length. No charge is refund_refused yet: the charges left refund_due stay so
// and are tried again, and one refused for good is moved by that try.

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`alter table subscription_charge alter column state type varchar(20)`.execute(db);
  await db.schema.alterTable('subscription_charge').addColumn('refund_refusal', 'text').execute();
  await db.schema.alterTable('subscription_charge').addColumn('refund_refused_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Back to being tried by every run, as before this migration (and within the old column's length).
  await db.updateTable('subscription_charge').set({ state: 'refund_due' }).where('state', '=', 'refund_refused').execute();
  await db.schema.alterTable('subscription_charge').dropColumn('refund_refused_at').execute();
  await db.schema.alterTable('subscription_charge').dropColumn('refund_refusal').execute();
  if (isPostgres(db)) await sql`alter table subscription_charge alter column state type varchar(12)`.execute(db);
}
