import type { Kysely } from 'kysely';

// The data export's /product takes updatedFrom and updatedTo and then pages in the order of the
// products' last change (updated_at, id): an index range and a seek, as (created_at, id) is for
// the creation window.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('product_updated_idx').on('product').columns(['updated_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('product_updated_idx').execute();
}
