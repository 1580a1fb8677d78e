import { sql, type Kysely } from 'kysely';

// Basket reminders (modules/basket, basket-reminders.ts): a logged-in client's basket left alone
// for a day is mailed once per change.
// - basket.reminded_version: the version of the basket a reminder was queued for (0: none; versions
//   start at 1). A write moves `version` on, so the basket is due again after another quiet
//   period; the scan claims a basket by a conditional update of this column.
// - basket_reminder_due_idx: the scan's keyset walk, client baskets not reminded for their version
//   in the order of their last change. Partial, so that guests' baskets (kept 30 days) and baskets
//   reminded already are not in it: a scan reads the baskets that are due and the few it skips.
// - basket_reminder_recipient: when a person (a user, all stores and accounts together) was last
//   sent a basket reminder, for the throttle of one in 7 days; read by its key, pruned by its time.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('basket')
    .addColumn('reminded_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('basket_reminder_due_idx')
    .on('basket')
    .columns(['updated_at', 'id'])
    .where(sql.raw<boolean>('client_account_id is not null and reminded_version <> version'))
    .execute();
  await db.schema
    .createTable('basket_reminder_recipient')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('app_user.id').onDelete('cascade'))
    .addColumn('reminded_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('basket_reminder_recipient_time_idx').on('basket_reminder_recipient').column('reminded_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('basket_reminder_recipient').execute();
  await db.schema.dropIndex('basket_reminder_due_idx').execute();
  await db.schema.alterTable('basket').dropColumn('reminded_version').execute();
}
