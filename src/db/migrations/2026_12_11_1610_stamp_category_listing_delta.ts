import { PostgresAdapter, sql, type Kysely } from 'kysely';

// category_listing_delta's rows wait for a worker's fold (scheduleCategoryTotalsFold); with WORKER=off and
// no `storefront worker` nothing folds them and every category total's read sums a longer range. /metrics
// tells the backlog (storefront_category_totals_deltas and the age of the oldest, docs/deployment.md):
// each delta is stamped with its transaction's start (Unix ms). now() is stable, so PostgreSQL adds the
// column without rewriting the table (the rows there get the time of this migration); the refresh
// function's insert leaves it to the default. SQLite keeps its counts by triggers and has no deltas.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('category_listing_delta')
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(postgres ? sql`(extract(epoch from now()) * 1000)::bigint` : 0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('category_listing_delta').dropColumn('created_at').execute();
}
