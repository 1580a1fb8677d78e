import { sql, type Kysely } from 'kysely';

// `order payments --refund-refused` lists the payments whose refund the gateway refused for good, a
// page at a time in id order: a handful among every payment ever made, so only they are indexed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('order_payment_refund_refused_idx')
    .on('order_payment')
    .column('id')
    .where(sql.ref('refund_refused_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('order_payment_refund_refused_idx').execute();
}
