import { sql, type Kysely } from 'kysely';

// GET /subscription/{id}/take pages what a subscription holds, newest first; audiobooks stay held
// for good, so the list grows every month. subscription_take_subscription_idx (subscription,
// period) gave neither the order nor the held filter: every take of the subscription was read and
// sorted for each page, and heldCount read each take's row. Over the held takes alone, in the
// list's order, a page is an index range and the count one over the same range.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('subscription_take_held_idx')
    .on('subscription_take')
    .columns(['subscription_id', 'created_at', 'id'])
    .where(sql.raw<boolean>('held_key is not null'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('subscription_take_held_idx').execute();
}
