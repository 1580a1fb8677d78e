import type { Kysely } from 'kysely';

// Banner click-through statistics: views and clicks counted per store, banner, placement and hour.
// The API adds up what the front-end reports in memory and writes a few upserts a second, never a
// row per event; the operators' report sums the hours of a period.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('banner_ctr')
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('banner_id', 'bigint', (c) => c.notNull())
    .addColumn('placement', 'varchar(40)', (c) => c.notNull())
    // Unix ms at the start of the hour.
    .addColumn('hour_start', 'bigint', (c) => c.notNull())
    .addColumn('views', 'bigint', (c) => c.notNull())
    .addColumn('clicks', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('banner_ctr_pk', ['store_code', 'banner_id', 'placement', 'hour_start'])
    .execute();
  await db.schema.createIndex('banner_ctr_hour_idx').on('banner_ctr').columns(['hour_start']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('banner_ctr').execute();
}
