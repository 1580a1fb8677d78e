import type { Kysely } from 'kysely';

// A virtual card's deliveries (modules/gift-cards, gift-cards.jobs.ts):
// - gift_card.undeliverable_at: when the mail server of the card's recipient refused the address as
//   one that does not exist. Set by a conditional update that also queues the mail telling the
//   buyer, so the buyer is told once however often the refused job runs.
// - gift_card.delivery: which sending of the card is current (0: the one queued when it was issued);
//   `gift-card redeliver` moves it on with the address it sends the card to instead, and each
//   recipient job names the delivery it is for, so that a job left from before sends nothing.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('gift_card').addColumn('undeliverable_at', 'bigint').execute();
  await db.schema
    .alterTable('gift_card')
    .addColumn('delivery', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('gift_card').dropColumn('delivery').execute();
  await db.schema.alterTable('gift_card').dropColumn('undeliverable_at').execute();
}
