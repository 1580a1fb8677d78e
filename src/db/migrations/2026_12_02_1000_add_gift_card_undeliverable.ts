import type { Kysely } from 'kysely';

// gift_card.undeliverable_at: when the mail server of a virtual card's recipient refused the address
// as one that does not exist (modules/gift-cards, gift-cards.jobs.ts). Set by a conditional update
// that also queues the mail telling the buyer, so the buyer is told once however often the refused
// job runs; `gift-card redeliver` clears it with the address it sends the card to instead.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('gift_card').addColumn('undeliverable_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('gift_card').dropColumn('undeliverable_at').execute();
}
