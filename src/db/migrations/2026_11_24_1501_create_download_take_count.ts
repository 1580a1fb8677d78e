import type { Kysely } from 'kysely';

// Downloads of what a subscription gave (a subscription take) are counted like those of a purchase,
// per take, every format together. A used link of a take records the take (its order_id is 0).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('download_take_count')
    .addColumn('take_id', 'bigint', (c) => c.primaryKey())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('download_link_use').addColumn('take_id', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('download_link_use').dropColumn('take_id').execute();
  await db.schema.dropTable('download_take_count').execute();
}
