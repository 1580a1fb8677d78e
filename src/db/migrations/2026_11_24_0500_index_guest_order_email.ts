import { sql, type Kysely } from 'kysely';

// "Your data" finds a person's guest orders by the billing email they gave (stored trimmed and
// lower-cased); only guest orders are looked up that way, so only they are indexed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('customer_order_guest_email_idx')
    .on('customer_order')
    .columns(['billing_email', 'id'])
    .where(sql.ref('client_account_id'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('customer_order_guest_email_idx').execute();
}
