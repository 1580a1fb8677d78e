import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// What a subscription gives (issue 17): one row per audiobook taken with a credit or from an
// unlimited plan and per e-book put on a shelf. `held_key` (`<subscription>:<product>`) is set while
// the product is held, so one subscription cannot hold a product twice; taking an e-book off the
// shelf clears it and sets `returned_at`. Credits used in a period are the takes of that period that
// used one: counted from these rows, never kept as a balance beside them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscription_take')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('subscription_id', 'bigint', (c) => c.notNull().references('subscription.id'))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    // AUDIOBOOK or EBOOK
    .addColumn('kind', 'varchar(12)', (c) => c.notNull())
    // The subscription's period when taken; with used_credit, what counts against that period's credits.
    .addColumn('period_number', 'integer', (c) => c.notNull())
    .addColumn('used_credit', 'boolean', (c) => c.notNull())
    .addColumn('held_key', 'varchar(60)', (c) => c.unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('returned_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('subscription_take_subscription_idx')
    .on('subscription_take')
    .columns(['subscription_id', 'period_number'])
    .execute();
  await db.schema.createIndex('subscription_take_account_idx').on('subscription_take').column('client_account_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('subscription_take').execute();
}
