import { sql } from 'kysely';
import type { DatabaseHandle, Db } from '../../../db/database.js';
import { markWritesNothingExported } from '../../../db/no-exported-writes.js';
import { preparedQuery } from '../../../db/prepared.js';
import { isPostgres } from '../../../db/row-lock.js';

// A category's list in its default order and its total, read from category_listing and
// category_listing_count (migration 1550) instead of counted and sorted per request. Triggers keep
// both exact when products, their categories or stores change; a change of the category tree makes
// them stale (category_listing_state) until rebuildCategoryListing() runs, and while stale the lists
// take the old path, so an answer is never built from an outdated tree. On PostgreSQL the triggers
// write a total's changes as rows of category_listing_delta (migration 2026_12_10_1010: no row that
// two writers update, so no deadlock between them); a total is its count plus its deltas, and
// foldCategoryListingDeltas() moves the deltas into the counts.

/** The smallest bigint: where a product of unknown release date sorts in descending order (last). */
const UNKNOWN_RELEASE = sql.raw('-9223372036854775808');

export interface CategoryListing {
  /** The total of the category's list for the audience; undefined while the listing is stale. */
  count(categoryId: number, audience: 'R' | 'B'): Promise<number | undefined>;
  /** Ids of one page in the default order (newest first, unknown dates last, then id descending). */
  page(categoryId: number, audience: 'R' | 'B', offset: number, limit: number): Promise<number[]>;
}

export function categoryListingReader(database: DatabaseHandle): CategoryListing {
  const counted = preparedQuery(database, (db, categoryId: number, audience: 'R' | 'B') =>
    db
      .selectFrom('category_listing_state as s')
      .select([
        sql<number>`case when s.version = s.built_version then 1 else 0 end`.as('current'),
        (eb) =>
          eb
            .selectFrom('category_listing_count as c')
            .select('c.products')
            .where('c.category_id', '=', categoryId)
            .where('c.audience', '=', audience)
            .as('products'),
        // In the same statement as the count: one snapshot, so a fold that commits meanwhile is seen whole or not at all.
        (eb) =>
          eb
            .selectFrom('category_listing_delta as d')
            .select((d) => d.fn.sum<number | string | null>('d.delta').as('delta'))
            .where('d.category_id', '=', categoryId)
            .where('d.audience', '=', audience)
            .as('delta'),
      ])
      .where('s.id', '=', 1),
  );
  const paged = preparedQuery(database, (db, categoryId: number, audience: 'R' | 'B', limit: number, offset: number) =>
    db
      .selectFrom('category_listing')
      .select('product_id')
      .where('category_id', '=', categoryId)
      .where('audience', '=', audience)
      .orderBy('newest_key', 'desc')
      .orderBy('product_id', 'desc')
      .limit(limit)
      .offset(offset),
  );
  return {
    async count(categoryId, audience) {
      const [row] = await counted(categoryId, audience);
      return row && Number(row.current) === 1 ? Number(row.products ?? 0) + Number(row.delta ?? 0) : undefined;
    },
    async page(categoryId, audience, offset, limit) {
      const rows = await paged(categoryId, audience, limit, offset);
      return rows.map((row) => Number(row.product_id));
    },
  };
}

/** Whether a category change since the last build left the listing stale. */
export async function categoryListingIsStale(db: Db): Promise<boolean> {
  const row = await db.selectFrom('category_listing_state').select(['version', 'built_version']).where('id', '=', 1).executeTakeFirst();
  return row !== undefined && Number(row.version) !== Number(row.built_version);
}

/**
 * Builds the subtrees, the listing and the counts afresh from the category tree and the products,
 * in one transaction; what it built from is recorded, so a tree change that lands meanwhile leaves
 * it stale for the next build. Writers wait for it (PostgreSQL: a table lock; SQLite: the write lock).
 * It writes only the listing's own tables, so the data export's cut does not wait for it (db/no-exported-writes.ts).
 */
export async function rebuildCategoryListing(db: Db): Promise<void> {
  const postgres = isPostgres(db);
  await db.transaction().execute(async (trx) => {
    await markWritesNothingExported(trx);
    // The count before the deltas, in the order a fold takes them (foldCategoryListingDeltas).
    if (postgres)
      await sql`lock table category_subtree, category_listing, category_listing_count, category_listing_delta in share row exclusive mode`.execute(
        trx,
      );
    const state = await trx.selectFrom('category_listing_state').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
    await sql`delete from category_subtree`.execute(trx);
    // The shown tree of categories.ts: active categories under active parents of the same store, from the roots down.
    await sql`insert into category_subtree (ancestor_id, category_id, store_code)
      with recursive reach(id, store_code) as (
        select id, store_code from category where is_active = true and parent_id is null
        union all
        select c.id, c.store_code from category c join reach r on c.parent_id = r.id where c.is_active = true and c.store_code = r.store_code
      ), sub(ancestor_id, category_id, store_code) as (
        select id, id, store_code from reach
        union all
        select s.ancestor_id, c.id, s.store_code from sub s join category c on c.parent_id = s.category_id
          where c.is_active = true and c.store_code = s.store_code
      )
      select ancestor_id, category_id, store_code from sub`.execute(trx);
    await sql`delete from category_listing`.execute(trx);
    await sql`delete from category_listing_count`.execute(trx);
    await sql`delete from category_listing_delta`.execute(trx);
    await sql`insert into category_listing (category_id, audience, newest_key, product_id)
      select distinct s.ancestor_id, a.audience, coalesce(p.released_at, ${UNKNOWN_RELEASE}), p.id
      from product p
      join product_category pc on pc.product_id = p.id
      join category_subtree s on s.category_id = pc.category_id
      join product_store ps on ps.product_id = p.id and ps.store_code = s.store_code
      join (select 'R' as audience union all select 'B') a
        on (a.audience = 'R' and p.hidden_web = false) or (a.audience = 'B' and p.hidden_business = false)
      where p.is_active = true`.execute(trx);
    await sql`insert into category_listing_count (category_id, audience, products)
      select category_id, audience, count(*) from category_listing group by category_id, audience`.execute(trx);
    await trx.updateTable('category_listing_state').set({ built_version: state.version }).where('id', '=', 1).execute();
  });
}

/**
 * PostgreSQL: moves the totals' deltas the triggers wrote (committed ones) into category_listing_count, in one
 * transaction, so a total read before or after it is the same. Writers only insert deltas, so it waits for
 * none of them, nor they for it; the count's lock (share row exclusive, which no writer takes any more) makes
 * it wait for another fold or a rebuild instead of folding the same rows twice (left out of the data export's
 * cut as the rebuild is, else a fold waiting on a rebuild held it back as long). Returns the deltas folded.
 */
export async function foldCategoryListingDeltas(db: Db): Promise<number> {
  if (!isPostgres(db)) return 0;
  return db.transaction().execute(async (trx) => {
    await markWritesNothingExported(trx);
    await sql`lock table category_listing_count in share row exclusive mode`.execute(trx);
    const { rows } = await sql<{ folded: number | string }>`
      with moved as (delete from category_listing_delta returning category_id, audience, delta),
      summed as (
        insert into category_listing_count (category_id, audience, products)
          select category_id, audience, sum(delta) from moved group by category_id, audience
          on conflict (category_id, audience) do update set products = category_listing_count.products + excluded.products
        returning 1)
      select count(*) as folded from moved`.execute(trx);
    return Number(rows[0]?.folded ?? 0);
  });
}

/** Past this many unfolded deltas the backlog's count stops (a scrape reads at most this many rows). */
export const CATEGORY_TOTALS_BACKLOG_CAP = 100_000;

/**
 * The category totals' deltas no fold has taken yet (PostgreSQL; none on SQLite), for /metrics: their
 * number, up to CATEGORY_TOTALS_BACKLOG_CAP, and when the oldest was written (Unix ms; undefined when
 * none waits). Both from the first rows of a scan, so a scrape costs at most that many rows however large
 * the backlog: rows are only inserted until a fold deletes them all, so the scan's first are the oldest
 * (an estimate past the cap).
 */
export async function categoryTotalsBacklog(db: Db): Promise<{ deltas: number; oldestAt: number | undefined }> {
  if (!isPostgres(db)) return { deltas: 0, oldestAt: undefined };
  const { rows } = await sql<{ deltas: number | string; oldest: number | string | null }>`
    select count(*) as deltas, min(created_at) as oldest
    from (select created_at from category_listing_delta limit ${CATEGORY_TOTALS_BACKLOG_CAP}) d`.execute(db);
  const oldest = rows[0]?.oldest;
  return { deltas: Number(rows[0]?.deltas ?? 0), oldestAt: oldest === null || oldest === undefined ? undefined : Number(oldest) };
}
