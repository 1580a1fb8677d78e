import { sql } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { groupBy } from '../../infra/group-by.js';
import { NAME_KINDS, type Db, type NameKind, type PendingRow, type ProductDocument, type SearchEngine } from './engine.js';
import { indexText } from './query-text.js';

// Keeping the text index current. Writers never call us: triggers (migration 1000) queue the ids
// of changed products, persons, publishers and series in search_pending within the writer's
// transaction, and folding turns queued rows into index documents, a batch per transaction:
// - before a search answers, when a few changes are queued (so a search sees what was just saved);
// - in the background of every API process, until the queue is empty (imports, the demo data);
// - all at once by `search reindex`, which queues everything and marks the index as building.
// A fold that empties the queue while the index is building marks it ready.

export const FOLD_BATCH = 500;

/** Where index upkeep reports (the application's logger). */
export interface SearchLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface IndexState {
  status: 'ready' | 'building';
  /** Queued changes, counted up to BACKLOG_LIMIT + 1. */
  backlog: number;
}

/** A queue longer than this means the index is far behind (a first import): searches answer 503 until it catches up. */
export const BACKLOG_LIMIT = 10_000;

export async function readState(db: Db): Promise<IndexState> {
  const result = await sql<{ status: IndexState['status']; backlog: number }>`select status,
    (select count(*) from (select 1 from search_pending limit ${BACKLOG_LIMIT + 1}) x) as backlog
    from search_state where id = 1`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('search_state has no row');
  return { status: row.status, backlog: Number(row.backlog) };
}

/** Folds up to `limit` queued changes in one transaction; returns how many were taken. */
export async function foldBatch(handle: DatabaseHandle, engine: SearchEngine, limit: number, now: number): Promise<number> {
  return handle.db.transaction().execute(async (trx) => {
    const claimed = await engine.claimPending(trx, limit);
    const byKind = groupBy(claimed, (row) => row.kind);
    const productIds = ids(byKind.get('product'));
    if (productIds.length > 0) {
      const documents = await productDocuments(trx, productIds);
      const found = new Set(documents.map((d) => d.id));
      await engine.writeProducts(trx, documents, productIds.filter((id) => !found.has(id)));
    }
    for (const kind of NAME_KINDS) {
      const kindIds = ids(byKind.get(kind));
      if (kindIds.length === 0) continue;
      const names = await trx.selectFrom(kind).select(['id', 'name']).where('id', 'in', kindIds).execute();
      const found = new Set(names.map((row) => row.id));
      const documents = names.map((row) => ({ id: row.id, name: indexText(row.name) }));
      await engine.writeNames(trx, kind, documents, kindIds.filter((id) => !found.has(id)));
    }
    await finishBuild(trx, now);
    return claimed.length;
  });
}

/** Marks a build done once nothing is queued; run after each batch and by every background tick. */
export async function finishBuild(db: Db, now: number): Promise<void> {
  await db
    .updateTable('search_state')
    .set({ status: 'ready', changed_at: now })
    .where('status', '=', 'building')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('search_pending').select('kind'))))
    .execute();
}

/**
 * Starts a full rebuild: in one transaction the index is emptied, every product, person,
 * publisher and series is queued and the state becomes 'building' (searches answer 503 from
 * now on, in every process). search_product is copied afresh too. Folding then refills it.
 */
export async function startRebuild(handle: DatabaseHandle, engine: SearchEngine, now: number): Promise<number> {
  return handle.db.transaction().execute(async (trx) => {
    await trx.updateTable('search_state').set({ status: 'building', changed_at: now }).where('id', '=', 1).execute();
    for (const kind of ['product', ...NAME_KINDS] as const) {
      await sql`insert into search_pending (kind, entity_id) select cast(${kind} as varchar(16)), id from ${sql.table(kind)} where true
        on conflict do nothing`.execute(trx);
    }
    await engine.clear(trx);
    await copySearchProducts(trx, handle.engine === 'postgres');
    const row = await trx.selectFrom('search_pending').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  });
}

export interface BackgroundFolder {
  /** Folds queued changes every `intervalMs` (at once, batch after batch, while there is a backlog). */
  start(): void;
  /** Stops and waits for the batch in hand. */
  stop(): Promise<void>;
}

const IDLE_INTERVAL_MS = 1000;

/** The index upkeep of an API process: cheap when idle (one read a second), steady when behind. */
export function backgroundFolder(
  handle: DatabaseHandle,
  engine: SearchEngine,
  log: SearchLog,
  clock: Clock = systemClock,
  intervalMs = IDLE_INTERVAL_MS,
): BackgroundFolder {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  async function tick(): Promise<void> {
    try {
      const state = await readState(handle.db);
      if (state.backlog === 0) {
        if (state.status === 'building') await finishBuild(handle.db, clock.now());
        return;
      }
      const started = clock.now();
      let folded = 0;
      for (let taken = FOLD_BATCH; taken === FOLD_BATCH && !stopped; ) {
        taken = await foldBatch(handle, engine, FOLD_BATCH, clock.now());
        folded += taken;
        // Let requests in between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await finishBuild(handle.db, clock.now());
      if (folded >= FOLD_BATCH) log.info({ folded, ms: clock.now() - started }, 'search index caught up');
    } catch (err) {
      // A database without the index (not migrated yet) or a lost connection: try again later.
      log.warn({ err }, 'search index upkeep failed');
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

// The columns migration 1000 copies into search_product (a migration must not import module code,
// so the list is kept there too; a migration that adds a column updates both).
const MIRRORED = [
  'is_active', 'hidden_web', 'hidden_business', 'type', 'language', 'binding_code', 'publisher_id', 'series_id', 'availability',
  'delivery_time', 'shop_price_cents', 'original_price_cents', 'wholesale_price_cents', 'vat_rate_percent', 'discount_percent',
  'sales_count', 'released_at', 'name',
] as const;

/** search_product from product and product_store (the triggers keep it; a rebuild also repairs it). */
async function copySearchProducts(trx: Db, postgres: boolean): Promise<void> {
  const stores = postgres
    ? sql`coalesce((select string_agg(ps.store_code, ' ' order by ps.store_code) from product_store ps where ps.product_id = p.id), '')`
    : sql`coalesce((select group_concat(ps.store_code, ' ') from product_store ps where ps.product_id = p.id), '')`;
  await trx.deleteFrom('search_product').execute();
  await sql`insert into search_product (id, stores, ${sql.join(MIRRORED.map((c) => sql.ref(c)))})
    select p.id, ${stores}, ${sql.join(MIRRORED.map((c) => sql.ref(`p.${c}`)))} from product p`.execute(trx);
}

function ids(rows: PendingRow[] | undefined): number[] {
  return (rows ?? []).map((row) => Number(row.entity_id));
}

/** The text of the products as the index holds it; products that no longer exist are left out. */
export async function productDocuments(db: Db, productIds: number[]): Promise<ProductDocument[]> {
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
  const personsOf = groupBy(persons, (row) => row.product_id);
  return products.map((row) => ({
    id: row.id,
    title: indexText(row.name),
    tags: indexText(...altNames(row.alt_names)),
    persons: indexText(...new Set((personsOf.get(row.id) ?? []).map((person) => person.name))),
    publisher: indexText(row.publisher),
    series: indexText(row.series),
  }));
}

function altNames(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    // A malformed column must not stop the index: the title still finds the product.
    return [];
  }
}

export type { NameKind };
