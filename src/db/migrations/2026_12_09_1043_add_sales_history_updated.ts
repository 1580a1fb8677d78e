import { sql, type Kysely } from 'kysely';

// The data export's /sales-history takes updatedFrom and updatedTo: sales_history.updated_at is
// when the row's export item last changed (the back office's createdNav filled in later, an
// erasure's blanking of the city and session), indexed with the id for the export's order. Rows
// there already start from their creation: when they changed since is not known.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sales_history')
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update sales_history set updated_at = created_at`.execute(db);
  await db.schema.createIndex('sales_history_updated_idx').on('sales_history').columns(['updated_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sales_history_updated_idx').execute();
  await db.schema.alterTable('sales_history').dropColumn('updated_at').execute();
}
