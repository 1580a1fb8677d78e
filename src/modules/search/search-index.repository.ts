import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { NameKind, ProductDocument } from './engine.js';
import { MAX_TITLE_KEY_CHARS } from './query-text.js';

// The SQL of index upkeep: the index state, the queue of changes, and what documents are made of.

export interface IndexState {
  status: 'ready' | 'building';
  /** Queued changes searches wait for, counted up to BACKLOG_LIMIT + 1. */
  backlog: number;
  /** Whether anything at all is queued: the backlog or products whose visibility changed. */
  queued: boolean;
}

/** A queue longer than this means the index is far behind (a first import): searches answer 503 until it catches up. */
export const BACKLOG_LIMIT = 10_000;

/** Changes folded per transaction by a search and by the background; a search folds this many before answering. */
export const FOLD_BATCH = 500;

/**
 * The state, and how far behind the index is. A visibility change (an import hiding or moving
 * thousands of products) is no text change: searches read visibility from search_product and
 * count from rows while one is queued, so it neither makes them wait nor answer 503.
 */
export async function readState(db: Db): Promise<IndexState> {
  const result = await sql<{ status: IndexState['status']; backlog: number; queued: number }>`select status,
    (select count(*) from (select 1 from search_pending where kind <> 'visibility' limit ${BACKLOG_LIMIT + 1}) x) as backlog,
    exists (select 1 from search_pending) as queued
    from search_state where id = 1`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('search_state has no row');
  return { status: row.status, backlog: Number(row.backlog), queued: Boolean(row.queued) };
}

/** Marks a build done once nothing is queued. */
export async function markReadyWhenEmpty(db: Db, now: number): Promise<void> {
  await db
    .updateTable('search_state')
    .set({ status: 'ready', changed_at: now })
    .where('status', '=', 'building')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('search_pending').select('kind'))))
    .execute();
}

/** A first build (see index-readiness.ts): 'building' unless a rebuild or another process got there first. */
export async function markFirstBuild(db: Db, now: number): Promise<boolean> {
  const result = await db
    .updateTable('search_state')
    .set({ status: 'building', changed_at: now })
    .where('id', '=', 1)
    .where('status', '=', 'ready')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The index is being rebuilt: searches answer 503 in every process until it is ready. */
export async function markBuilding(db: Db, now: number): Promise<void> {
  await db.updateTable('search_state').set({ status: 'building', changed_at: now }).where('id', '=', 1).execute();
}

/** Queues every row of the kind's table for folding. */
export async function queueAll(db: Db, kind: 'product' | NameKind): Promise<void> {
  await sql`insert into search_pending (kind, entity_id) select cast(${kind} as varchar(16)), id from ${sql.table(kind)} where true
    on conflict do nothing`.execute(db);
}

export async function countPending(db: Db): Promise<number> {
  const row = await db
    .selectFrom('search_pending')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many products search_product holds. */
export async function countSearchProducts(db: Db): Promise<number> {
  const counted = await sql<{ n: number }>`select count(*) as n from search_product`.execute(db);
  return Number(counted.rows[0]?.n ?? 0);
}

/** Names of persons, publishers or series by id; ids with no row are left out. */
export function nameRows(db: Db, kind: NameKind, ids: number[]) {
  return db.selectFrom(kind).select(['id', 'name']).where('id', 'in', ids).execute();
}

// The columns migration 1000 copies into search_product (a migration must not import module code,
// so the list is kept there too; a migration that adds a column updates both).
const MIRRORED = [
  'is_active',
  'hidden_web',
  'hidden_business',
  'type',
  'language',
  'binding_code',
  'publisher_id',
  'series_id',
  'availability',
  'delivery_time',
  'shop_price_cents',
  'original_price_cents',
  'wholesale_price_cents',
  'vat_rate_percent',
  'discount_percent',
  'sales_count',
  'released_at',
  'name',
] as const;

/** search_product from product and product_store (the triggers keep it; a rebuild also repairs it). */
export async function copySearchProducts(trx: Db, postgres: boolean): Promise<void> {
  const stores = postgres
    ? sql`coalesce((select string_agg(ps.store_code, ' ' order by ps.store_code) from product_store ps where ps.product_id = p.id), '')`
    : sql`coalesce((select group_concat(ps.store_code, ' ') from product_store ps where ps.product_id = p.id), '')`;
  await trx.deleteFrom('search_product').execute();
  await sql`insert into search_product (id, stores, ${sql.join(MIRRORED.map((c) => sql.ref(c)))})
    select p.id, ${stores}, ${sql.join(MIRRORED.map((c) => sql.ref(`p.${c}`)))} from product p`.execute(trx);
}

const KEYS_PER_UPDATE = 400;

/**
 * The products' title keys (search_product.title_key), from their folded documents: a document's title is
 * the title's key (query-text.ts titleKey), kept empty past MAX_TITLE_KEY_CHARS. Rows whose key stands are
 * not written (a visibility change folds a document again).
 */
export async function writeTitleKeys(trx: Db, documents: ProductDocument[]): Promise<void> {
  for (let start = 0; start < documents.length; start += KEYS_PER_UPDATE) {
    const keys = documents
      .slice(start, start + KEYS_PER_UPDATE)
      .map((d) => sql`(cast(${d.id} as bigint), ${d.title.length <= MAX_TITLE_KEY_CHARS ? d.title : ''})`);
    await sql`with k (id, title_key) as (values ${sql.join(keys)})
      update search_product set title_key = k.title_key from k where search_product.id = k.id and search_product.title_key <> k.title_key`.execute(
      trx,
    );
  }
}

/** The rows a product's document is made of: its names, publisher and series, and its persons in order. */
export async function documentRows(db: Db, productIds: number[]) {
  const [products, persons] = await Promise.all([
    db
      .selectFrom('product as p')
      .leftJoin('publisher as pub', 'pub.id', 'p.publisher_id')
      .leftJoin('series as s', 's.id', 'p.series_id')
      .select(['p.id', 'p.name', 'p.alt_names', 'pub.name as publisher', 's.name as series'])
      .where('p.id', 'in', productIds)
      .execute(),
    db
      .selectFrom('product_person as pp')
      .innerJoin('person', 'person.id', 'pp.person_id')
      .select(['pp.product_id', 'person.name'])
      .where('pp.product_id', 'in', productIds)
      .orderBy('pp.product_id')
      .orderBy('pp.position')
      .execute(),
  ]);
  return { products, persons };
}
