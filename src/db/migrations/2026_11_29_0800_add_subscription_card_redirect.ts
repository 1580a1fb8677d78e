import type { Kysely } from 'kysely';

// POST /subscription-credit-card sent twice (a double click, a retry after a timeout) started two
// cards and two card-saving payments at the gateway. A card being saved now keeps the redirect form
// its gateway gave (the payment page's address and the payment's reference, nothing secret: the
// shopper's browser is sent there), so that the same client asking again while it is still pending
// and recent is answered that form. Earlier rows have none: a card started just before the migration
// is waited for and answered 409 (try again) for its first minute, then given up for a new one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_card').addColumn('redirect', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_card').dropColumn('redirect').execute();
}
