import type { Kysely } from 'kysely';

// The billing run looks a stale pending charge up at its gateway (or sends it again) and, where the
// gateway cannot tell (EveryPay took it, its callback never came, the repeat is refused), leaves it
// pending with nothing on the row changed. It took the first 500 such charges by id, so once 500 were
// stuck every hourly run asked about the same ones for ever and no later charge was reconciled. A
// charge now records when it was last looked up (null: never): the run takes the least recently looked
// up first, and asks about one charge hourly during its first day, then daily (billing.service.ts).
// Earlier rows have none, and are looked up first.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('checked_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('checked_at').execute();
}
