import type { Kysely } from 'kysely';

// Whether shoppers see a place of the chain as a shop (`/shop`, a product's shops, the shop filters
// of lists and search). A web warehouse or an office has stock the back office counts (web stock,
// the export's shops) but nobody walks in there. Shops from before are all listed, as they were shown.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('shop')
    .addColumn('is_listed', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('shop').dropColumn('is_listed').execute();
}
