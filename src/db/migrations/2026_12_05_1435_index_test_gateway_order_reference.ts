import type { Kysely } from 'kysely';

// The test gateway looks a payment up by its order reference, the latest first (findPayment, for a
// subscription charge whose answer was lost). The demo keeps every payment it made, and the look-up
// read them all and sorted the reference's: this index answers it with the first entry it walks to.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('test_gateway_payment_order_reference_idx')
    .on('test_gateway_payment')
    .columns(['order_reference', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('test_gateway_payment_order_reference_idx').execute();
}
