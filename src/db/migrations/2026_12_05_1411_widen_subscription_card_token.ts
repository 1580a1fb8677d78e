import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A saved card's token is kept sealed (subscriptions/card-tokens.ts): `v1.<keyId>.<iv>.<tag>.<ciphertext>`,
// a key id of up to 16 characters, the IV and tag 16 and 22 base64url characters, the token's UTF-8
// bytes a third longer. The column was varchar(256) on PostgreSQL, so a token of more than about 147
// characters (EveryPay documents no length; the shop takes up to 256, everypay.wire.ts) was refused:
// the card check, paid at EveryPay, saved no card and its return was a 500. 256 characters of up to 3
// UTF-8 bytes each seal to at most 1,084 characters: widened to 1,100, a change of the declared length
// only. SQLite does not enforce a varchar's length.

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`alter table subscription_card alter column token type varchar(1100)`.execute(db);
}

export async function down(): Promise<void> {
  // Left wide: the build before reads and writes the wider column as it did the narrow one, and narrowing
  // it again would fail on the cards saved with long tokens.
}
