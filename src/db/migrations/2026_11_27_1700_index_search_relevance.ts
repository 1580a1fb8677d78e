import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Relevance without a text orders by availability (out of stock last) and then sales, and a broad
// text's first pages are read by walking that order (SQLite, src/modules/search/relevance-walk.repository.ts)
// and keeping the products it matches, instead of ranking every match. The expression must stay
// the one the walk writes: SQLite uses an expression index only for the same expression.
// PostgreSQL ranks its matches in one hashed pass and does not walk: no index there.
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`create index search_product_relevance_idx on search_product ((case availability
    when 'TEMPORARILY_OUT_OF_STOCK' then 1 when 'PERMANENTLY_OUT_OF_STOCK' then 2 else 0 end), sales_count desc, id desc)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`drop index search_product_relevance_idx`.execute(db);
}
