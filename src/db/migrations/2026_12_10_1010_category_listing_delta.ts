import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';
import { refreshProduct, UNKNOWN_RELEASE } from './2026_11_24_1550_create_category_listing.js';

// A category list's total without a row that every writer of the category's products updates (issue 19).
// category_listing_count held one row per category and audience that each product refresh updated: two
// PostgreSQL writers that changed products of two categories in opposite orders deadlocked on them (40P01),
// and one transaction's refresh of 3,000 products of the largest category took 22.5 s (each update of a
// count row walks the versions the transaction left on it; 1.8-2.9 s with deltas; 200,000 products, a loaded
// machine). Counting category_listing's (category, audience) range at read time instead (as store_listing
// does) took 45-80 ms for the largest category (70,000 products) against 0.1 ms.
// So on PostgreSQL a product's refresh now inserts its net change per (category, audience) into
// category_listing_delta, a table no writer updates or deletes from: a total is category_listing_count's
// row plus the sum of its deltas, read in one statement (one snapshot). The catalogue folds the deltas
// into the counts periodically and at a rebuild (category-listing.repository.ts), one fold at a time. SQLite
// runs one writer at a time: its triggers keep updating the counts, and it has no deltas.

/** pg_advisory_xact_lock's first key of a product's refresh (migration 2026_11_24_1600): one lock per product. */
const DOCUMENT_LOCK_SPACE = 1_600_024;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('category_listing_delta')
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .addColumn('audience', 'char(1)', (c) => c.notNull())
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .execute();
  // A total's read sums its range; the fold deletes them all.
  await db.schema.createIndex('category_listing_delta_idx').on('category_listing_delta').columns(['category_id', 'audience']).execute();
  if (!postgres) return;
  // A queue: rows inserted, then deleted by the fold. Until vacuumed, the dead ones are read by a total's sum (20,000
  // folded deltas left the largest category's total at 23-33 ms instead of 0.4 ms), and the planner's idea of the
  // table is a stale 0 or 20,000 rows: vacuum and analyze it after every thousand rows, not a fifth of it.
  await sql`alter table category_listing_delta set (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_analyze_threshold = 1000, autovacuum_analyze_scale_factor = 0)`.execute(db);
  // The product's lock serialises two writers of one product (as store_listing_refresh's does): without it the
  // second's delete would not see the first's new rows (its old set would be short), and its insert would meet them.
  // The count rows did that before, for products already listed.
  await sql
    .raw(
      `create or replace function category_listing_refresh(pid bigint) returns void language plpgsql as $$
      declare old_c bigint[]; old_a text[]; new_c bigint[]; new_a text[];
      begin
        perform pg_advisory_xact_lock(${DOCUMENT_LOCK_SPACE}, (pid % 2147483647)::int);
        with gone as (delete from category_listing where product_id = pid returning category_id, audience)
          select array_agg(category_id), array_agg(audience::text) into old_c, old_a from gone;
        with added as (
          insert into category_listing (category_id, audience, newest_key, product_id)
            select distinct s.ancestor_id, a.audience, coalesce(p.released_at, ${UNKNOWN_RELEASE}), p.id
            from product p
            join product_category pc on pc.product_id = p.id
            join category_subtree s on s.category_id = pc.category_id
            join product_store ps on ps.product_id = p.id and ps.store_code = s.store_code
            join (select 'R' as audience union all select 'B') a
              on (a.audience = 'R' and p.hidden_web = false) or (a.audience = 'B' and p.hidden_business = false)
            where p.id = pid and p.is_active = true
            returning category_id, audience)
          select array_agg(category_id), array_agg(audience::text) into new_c, new_a from added;
        -- Only net changes: a new release date deletes and inserts the same (category, audience) pairs.
        insert into category_listing_delta (category_id, audience, delta)
          select c, a, sum(d) from (
            select unnest(old_c) as c, unnest(old_a) as a, -1 as d
            union all select unnest(new_c), unnest(new_a), 1) changes
          group by c, a having sum(d) <> 0;
      end $$`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`lock table category_listing_count, category_listing_delta in share row exclusive mode`.execute(db);
    await sql`insert into category_listing_count (category_id, audience, products)
      select category_id, audience, sum(delta) from category_listing_delta group by category_id, audience
      on conflict (category_id, audience) do update set products = category_listing_count.products + excluded.products`.execute(db);
    await sql
      .raw(
        `create or replace function category_listing_refresh(pid bigint) returns void language plpgsql as $$ begin ${refreshProduct('pid', true)} end $$`,
      )
      .execute(db);
  }
  await db.schema.dropTable('category_listing_delta').execute();
}
