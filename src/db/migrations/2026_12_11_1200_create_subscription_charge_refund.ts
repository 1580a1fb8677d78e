import { sql, type Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// `subscription stats` booked a subscription charge's refunds in the month the charge settled (refunded_cents, all
// there was, has no time) and took a charge charged back out of every month it had counted in (settled no more), so
// a closed month changed when a refund or chargeback came later. Each refund of a charge's payment is now a row of
// its own, with its kind and time, written in the transaction that adds it to refunded_cents (charges.repository.ts
// recordRefunded: the column stays the sum of the charge's rows, which the export and the refund lists read), and a
// charge records when it settled as the payment it was for (settled_at; null for one never so: pending, failed, or
// money taken for nothing, refund_due from the start), which a later refund or chargeback leaves.
//
// Earlier rows, from the best data there is, so that the months reported before read as they did:
// - settled_at: a settled charge's updated_at, the time the stats booked it by (nothing but a move of its state
//   moves it, and a refund in part moves none). A charge refunded since (taken back whole, or refunded for nothing)
//   cannot be told apart here from one that never settled as a payment, and was counted nowhere: left null, so
//   it stays out of revenue and `started`, as it was.
// - a charge's refunded_cents so far: one row of kind `unknown` (neither its kind nor its time is known) at the
//   charge's updated_at, so a settled charge's part refunds still come off the month it settled in.
// Written before any code that writes the new table runs (a deploy migrates first); a short write of two
// statements over subscription_charge, no copy of it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscription_charge_refund')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('charge_id', 'bigint', (c) => c.notNull().references('subscription_charge.id').onDelete('cascade'))
    // refund (the shop's, or one made in the gateway's portal), chargeback (the cardholder's bank), by_hand (the
    // operator paid it back outside the gateway: `subscription mark-refunded`), unknown (recorded before this table).
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('refunded_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscription_charge_refund_charge_idx').on('subscription_charge_refund').column('charge_id').execute();
  await db.schema.alterTable('subscription_charge').addColumn('settled_at', 'bigint').execute();
  await sql`update subscription_charge set settled_at = updated_at where state = 'settled'`.execute(db);
  await sql`
    insert into subscription_charge_refund (charge_id, kind, amount_cents, refunded_at)
    select id, 'unknown', refunded_cents, updated_at from subscription_charge where refunded_cents > 0 order by id
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('settled_at').execute();
  await db.schema.dropTable('subscription_charge_refund').execute();
}
