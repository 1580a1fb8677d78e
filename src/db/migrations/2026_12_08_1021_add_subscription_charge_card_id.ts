import type { Kysely } from 'kysely';

// The saved card a subscription charge was made with. A charge whose payment is charged back (the
// cardholder disputed it, often a stolen card) retires that card, as card-network rules say a disputed
// card is not billed again; the subscription's card may have changed since the charge, so the charge
// names its own. Null for charges made before (that card is not known, and none is retired) and for a
// renewal claimed without a card. No foreign key: a card removed or pruned leaves its charges as they are.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('card_id', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('card_id').execute();
}
