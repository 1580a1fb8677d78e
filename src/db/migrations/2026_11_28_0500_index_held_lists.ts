import { sql, type Kysely } from 'kysely';

// GET /subscription/{id}/take pages what a subscription holds, newest first; audiobooks stay held
// for good, so the list grows every month. subscription_take_subscription_idx (subscription,
// period) gave neither the order nor the held filter: every take of the subscription was read and
// sorted for each page, and heldCount read each take's row. Over the held takes alone, in the
// list's order, a page is an index range and the count one over the same range.
//
// GET /client-account read every consent event of the user (each toggle adds one) to show when
// each consent was last given and last withdrawn. With the answer in the index, each of those is
// one seek from the end; it replaces marketing_consent_event_user_idx, whose columns it starts with
// (the data export and the erasure read a user's events by its first column).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('subscription_take_held_idx')
    .on('subscription_take')
    .columns(['subscription_id', 'created_at', 'id'])
    .where(sql.raw<boolean>('held_key is not null'))
    .execute();
  await db.schema
    .createIndex('marketing_consent_event_latest_idx')
    .on('marketing_consent_event')
    .columns(['user_id', 'consent', 'granted', 'id'])
    .execute();
  await db.schema.dropIndex('marketing_consent_event_user_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('marketing_consent_event_user_idx')
    .on('marketing_consent_event')
    .columns(['user_id', 'consent', 'id'])
    .execute();
  await db.schema.dropIndex('marketing_consent_event_latest_idx').execute();
  await db.schema.dropIndex('subscription_take_held_idx').execute();
}
