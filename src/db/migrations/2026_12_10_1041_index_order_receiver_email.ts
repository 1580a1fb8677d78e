import { sql, type Kysely } from 'kysely';

// "Your data" finds the orders someone else placed for a person by the receiver's address they gave (shipping
// email, stored trimmed and lower-cased, another than the billing one): the receiver's erasure takes them out of
// those orders. Only such orders are looked up that way, so only they are indexed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('customer_order_receiver_email_idx')
    .on('customer_order')
    .columns(['shipping_email', 'id'])
    .where(sql.ref('shipping_email'), '<>', sql.ref('billing_email'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('customer_order_receiver_email_idx').execute();
}
