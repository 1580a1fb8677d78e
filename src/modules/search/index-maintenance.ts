import type { Db, DatabaseHandle } from '../../db/database.js';
import { markWritesNothingExported } from '../../db/no-exported-writes.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { groupBy } from '../../infra/group-by.js';
import { NAME_KINDS, type NameKind, type PendingRow, type ProductDocument, type SearchEngine } from './engine.js';
import { indexText } from './query-text.js';
import { noteFirstBuild } from './index-readiness.js';
import {
  copySearchProducts,
  FOLD_BATCH,
  countPending,
  documentRows,
  markBuilding,
  markReadyWhenEmpty,
  nameRows,
  queueAll,
  readState,
  writeTitleKeys,
} from './search-index.repository.js';

export { BACKLOG_LIMIT, FOLD_BATCH, readState, type IndexState } from './search-index.repository.js';

// Keeping the text index current. Writers never call us: triggers (migration 1000) queue the ids
// of changed products, persons, publishers and series in search_pending within the writer's
// transaction, and folding turns queued rows into index documents, a batch per transaction:
// - before a search answers, when a few changes are queued (so a search sees what was just saved);
// - in the background of every API process, until the queue is empty (imports, the demo data);
// - all at once by `search reindex`, which queues everything and marks the index as building.
// A fold that empties the queue while the index is building marks it ready. A first build (a
// catalogue filled before the index, see index-readiness.ts) is marked 'building' too.

/** Batches of a background fold while the index is building (searches answer 503 anyway): fewer, larger transactions. */
const BUILD_BATCH = 2_000;

/** Where index upkeep reports (the application's logger). */
export interface SearchLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** Marks a build done once nothing is queued; run after each batch and by every background tick. */
export const finishBuild = markReadyWhenEmpty;

/**
 * Folds up to `limit` queued changes in one transaction; returns how many were taken. It writes only the
 * index's own tables, so the data export's cut does not wait for it (db/no-exported-writes.ts).
 */
export async function foldBatch(handle: DatabaseHandle, engine: SearchEngine, limit: number, now: number): Promise<number> {
  return handle.db.transaction().execute(async (trx) => {
    await markWritesNothingExported(trx);
    const claimed = await engine.claimPending(trx, limit);
    const byKind = groupBy(claimed, (row) => row.kind);
    const productIds = [...new Set([...ids(byKind.get('product')), ...ids(byKind.get('visibility'))])];
    if (productIds.length > 0) {
      const documents = await productDocuments(trx, productIds);
      const found = new Set(documents.map((d) => d.id));
      await engine.writeProducts(
        trx,
        documents,
        productIds.filter((id) => !found.has(id)),
      );
      await writeTitleKeys(trx, documents);
    }
    for (const kind of NAME_KINDS) {
      const kindIds = ids(byKind.get(kind));
      if (kindIds.length === 0) continue;
      const names = await nameRows(trx, kind, kindIds);
      const found = new Set(names.map((row) => row.id));
      const documents = names.map((row) => ({ id: row.id, name: indexText(row.name) }));
      await engine.writeNames(
        trx,
        kind,
        documents,
        kindIds.filter((id) => !found.has(id)),
      );
    }
    await finishBuild(trx, now);
    return claimed.length;
  });
}

/**
 * Starts a full rebuild: in one transaction the index is emptied, every product, person,
 * publisher and series is queued and the state becomes 'building' (searches answer 503 from
 * now on, in every process). search_product is copied afresh too. Folding then refills it. Like a
 * fold it writes only the index's tables: the data export's cut does not wait for it.
 */
export async function startRebuild(handle: DatabaseHandle, engine: SearchEngine, now: number): Promise<number> {
  return handle.db.transaction().execute(async (trx) => {
    await markWritesNothingExported(trx);
    await markBuilding(trx, now);
    for (const kind of ['product', ...NAME_KINDS] as const) await queueAll(trx, kind);
    await engine.clear(trx);
    await copySearchProducts(trx, handle.engine === 'postgres');
    return countPending(trx);
  });
}

/**
 * Folds everything queued, batch after batch, and marks a build done: what `import` runs at its
 * end (so its changes are searchable when it exits) and `search reindex` runs. Other processes may
 * fold alongside; whoever takes the last rows marks the index ready.
 */
export async function foldAllQueued(
  handle: DatabaseHandle,
  engine: SearchEngine,
  options: { clock?: Clock; batch?: number; progress?: (folded: number) => void } = {},
): Promise<{ folded: number; seconds: number }> {
  const clock = options.clock ?? systemClock;
  const batch = options.batch ?? BUILD_BATCH;
  const started = performance.now();
  await noteFirstBuild(handle.db, engine, await readState(handle.db), clock.now());
  let folded = 0;
  let lastReport = started;
  for (let taken = batch; taken > 0;) {
    taken = await foldBatch(handle, engine, batch, clock.now());
    folded += taken;
    if (options.progress && performance.now() - lastReport > 2000) {
      lastReport = performance.now();
      options.progress(folded);
    }
  }
  await finishBuild(handle.db, clock.now());
  return { folded, seconds: (performance.now() - started) / 1000 };
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
      const state = await noteFirstBuild(handle.db, engine, await readState(handle.db), clock.now());
      if (!state.queued) {
        if (state.status === 'building') await finishBuild(handle.db, clock.now());
        return;
      }
      const started = clock.now();
      const batch = state.status === 'building' ? BUILD_BATCH : FOLD_BATCH;
      let folded = 0;
      for (let taken = batch; taken === batch && !stopped;) {
        taken = await foldBatch(handle, engine, batch, clock.now());
        folded += taken;
        // Let requests in between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await finishBuild(handle.db, clock.now());
      const ms = clock.now() - started;
      if (folded >= FOLD_BATCH)
        log.info({ folded, ms, perSecond: Math.round((folded * 1000) / Math.max(ms, 1)) }, 'search index caught up');
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

function ids(rows: PendingRow[] | undefined): number[] {
  return (rows ?? []).map((row) => Number(row.entity_id));
}

/** The text of the products as the index holds it; products that no longer exist are left out. */
export async function productDocuments(db: Db, productIds: number[]): Promise<ProductDocument[]> {
  const { products, persons } = await documentRows(db, productIds);
  const personsOf = groupBy(persons, (row) => row.product_id);
  // A batch names the same persons, publishers and series many times over: each is folded once.
  const folded = new Map<string, string>();
  const name = (text: string | null) => {
    if (!text) return '';
    let result = folded.get(text);
    if (result === undefined) folded.set(text, (result = indexText(text)));
    return result;
  };
  const join = (parts: string[]) => parts.filter((part) => part !== '').join(' ');
  return products.map((row) => ({
    id: row.id,
    title: indexText(row.name),
    tags: indexText(...altNames(row.alt_names)),
    persons: join([...new Set((personsOf.get(row.id) ?? []).map((person) => person.name))].map(name)),
    publisher: name(row.publisher),
    series: name(row.series),
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
