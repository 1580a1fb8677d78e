import { sql, type Kysely } from 'kysely';

// The test gateway's token of a saved card was `tgt_` and the characters of the reference of the
// payment that saved it: anyone who saw the reference (it is in the payment page's URL) could charge
// the card. A payment that saves a card now gets a random token of its own, kept here; a token no row
// holds is refused. Cards saved before keep the token the shop holds for them (sealed under a key
// this migration cannot reach), so their renewals still charge; a card saved again gets a random one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('test_gateway_payment').addColumn('card_token', 'text').execute();
  await db
    .updateTable('test_gateway_payment')
    .set({ card_token: sql`'tgt_' || substr(reference, 5)` })
    .where(sql<boolean>`request_token`)
    .execute();
  await db.schema.createIndex('test_gateway_payment_card_token_uq').unique().on('test_gateway_payment').column('card_token').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('test_gateway_payment_card_token_uq').execute();
  await db.schema.alterTable('test_gateway_payment').dropColumn('card_token').execute();
}
