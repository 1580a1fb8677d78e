import type { Kysely } from 'kysely';

// gift_card_entry.extended_to (modules/gift-cards, gift-card-ledger.ts): money given back to a card
// (an order's refund or released hold) on a card past its date or within RETURN_VALID_DAYS of it gives
// the card until the end of that many days' last day; the entry that gave the money back records the
// date it gave, the reason the card's expires_at moved. The back office's import keeps the later of
// its date and the card's latest such date. Null on every other entry.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('gift_card_entry').addColumn('extended_to', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('gift_card_entry').dropColumn('extended_to').execute();
}
