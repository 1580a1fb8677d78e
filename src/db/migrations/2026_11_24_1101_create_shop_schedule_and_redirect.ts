import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Shop schedules: regular opening hours per ISO weekday (1 = Monday; no row = closed that day) and
// dated exceptions (a holiday closed all day when `opens_minute` is null, or a short day), times
// as minutes after midnight in Europe/Tallinn. Redirects: where an old URL of a store lives now and
// with which status; `hits` is added to in batches by the API processes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shop_opening_hours')
    .addColumn('shop_id', 'bigint', (c) => c.notNull().references('shop.id').onDelete('cascade'))
    .addColumn('weekday', 'integer', (c) => c.notNull())
    .addColumn('opens_minute', 'integer', (c) => c.notNull())
    .addColumn('closes_minute', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_opening_hours_pk', ['shop_id', 'weekday'])
    .execute();
  await db.schema
    .createTable('shop_schedule_exception')
    .addColumn('shop_id', 'bigint', (c) => c.notNull().references('shop.id').onDelete('cascade'))
    // YYYY-MM-DD in Europe/Tallinn.
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('opens_minute', 'integer')
    .addColumn('closes_minute', 'integer')
    // {"et": "Jõululaupäev", "en": ...} as JSON text: a label per language, Estonian required.
    .addColumn('names', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_schedule_exception_pk', ['shop_id', 'day'])
    .execute();

  await db.schema
    .createTable('redirect')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    // The old path (with its query, if it had one), normalised: see redirect-path.ts.
    .addColumn('path', 'varchar(1000)', (c) => c.notNull())
    .addColumn('target', 'varchar(1000)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('hits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_hit_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('redirect_store_path_uq').unique().on('redirect').columns(['store_code', 'path']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['redirect', 'shop_schedule_exception', 'shop_opening_hours']) await db.schema.dropTable(table).execute();
}
