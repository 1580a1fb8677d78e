import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Subscriptions (issue 17): the plans the back office imports, the cards customers save for them
// (only the gateway's token, brand, last four digits and expiry), the subscriptions, who has had a
// trial of which kind of plan, and one charge row per subscription, period, purpose and attempt,
// written before the gateway is called: its unique key is what keeps a period from being charged
// twice by two billing runs or by a run that crashed and is run again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscription_plan')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    // AUDIO_CREDITS, AUDIO_UNLIMITED, EBOOK_SHELF
    .addColumn('kind', 'varchar(20)', (c) => c.notNull())
    // {"et": "...", "en": "...", "ru": "..."}
    .addColumn('titles', 'text', (c) => c.notNull())
    .addColumn('credits_per_month', 'integer')
    .addColumn('shelf_size', 'integer')
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('trial_days', 'integer', (c) => c.notNull())
    // Store codes, comma-separated: the stores that sell the plan.
    .addColumn('stores', 'varchar(200)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('subscription_card')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('gateway', 'varchar(20)', (c) => c.notNull())
    // PENDING until the gateway confirms the card-saving payment, then ACTIVE.
    .addColumn('state', 'varchar(12)', (c) => c.notNull())
    .addColumn('order_reference', 'varchar(60)', (c) => c.notNull().unique())
    .addColumn('payment_reference', 'varchar(256)')
    .addColumn('token', 'varchar(256)')
    .addColumn('brand', 'varchar(32)')
    .addColumn('last_four', 'varchar(4)')
    .addColumn('expiry_month', 'integer')
    .addColumn('expiry_year', 'integer')
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscription_card_account_idx').on('subscription_card').column('client_account_id').execute();
  await db.schema.createIndex('subscription_card_payment_idx').on('subscription_card').column('payment_reference').execute();

  await db.schema
    .createTable('subscription')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('plan_id', 'bigint', (c) => c.notNull().references('subscription_plan.id'))
    // PENDING (first charge under way), TRIAL, ACTIVE, FAILED (retrying), LAPSED, ENDED
    .addColumn('status', 'varchar(12)', (c) => c.notNull())
    // `<client account>:<family>` while the subscription lives, null after: one live one per family.
    .addColumn('live_key', 'varchar(60)', (c) => c.unique())
    .addColumn('card_id', 'bigint')
    .addColumn('trial', 'boolean', (c) => c.notNull())
    .addColumn('period_number', 'integer', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('period_end', 'bigint', (c) => c.notNull())
    .addColumn('next_plan_id', 'bigint')
    .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema.createIndex('subscription_account_idx').on('subscription').column('client_account_id').execute();
  await db.schema.createIndex('subscription_due_idx').on('subscription').columns(['status', 'period_end']).execute();

  await db.schema
    .createTable('subscription_trial_use')
    // `U<user id>` or `A<client account id>`: a trial is once per user and once per client account.
    .addColumn('subject', 'varchar(40)', (c) => c.notNull())
    .addColumn('plan_kind', 'varchar(20)', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscription_trial_use_pk', ['subject', 'plan_kind'])
    .execute();

  await db.schema
    .createTable('subscription_charge')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('subscription_id', 'bigint', (c) => c.notNull())
    .addColumn('period_number', 'integer', (c) => c.notNull())
    // PERIOD (the first charge and renewals) or UPGRADE (the prorated difference of a plan change)
    .addColumn('purpose', 'varchar(12)', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('plan_id', 'bigint', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('gateway', 'varchar(20)', (c) => c.notNull())
    .addColumn('order_reference', 'varchar(60)', (c) => c.notNull().unique())
    .addColumn('idempotency_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('reference', 'varchar(256)')
    // pending (written before the gateway call), settled, failed
    .addColumn('state', 'varchar(12)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('subscription_charge_once_uq', ['subscription_id', 'period_number', 'purpose', 'attempt'])
    .execute();
  await db.schema.createIndex('subscription_charge_state_idx').on('subscription_charge').column('state').execute();
  await db.schema.createIndex('subscription_charge_reference_idx').on('subscription_charge').column('reference').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['subscription_charge', 'subscription_trial_use', 'subscription', 'subscription_card', 'subscription_plan'])
    await db.schema.dropTable(table).execute();
}
