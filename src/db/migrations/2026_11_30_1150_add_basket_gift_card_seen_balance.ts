import type { Kysely } from 'kysely';

// A card on a basket keeps the balance the shopper saw when putting it there (as a line keeps the
// price it was added at), so that checkout can tell a card another order spent meanwhile from one
// the shopper saw as it is: it paid less than the basket had shown, and the shopper paid the rest
// online unawares. Rows from before have none and are checked against the balance at checkout, as before.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('basket_gift_card').addColumn('seen_balance_cents', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('basket_gift_card').dropColumn('seen_balance_cents').execute();
}
