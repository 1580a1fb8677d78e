import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import { cacheStats } from '../../infra/metrics/cache-stats.js';
import type { CatalogueReferenceVersionTable } from './catalogue.tables.js';

// Reference data every list reads (category trees, binding names) kept per process and checked
// against catalogue_reference_version (migration 1640, bumped by triggers on every change) once its
// cache period is over: a row read by primary key instead of reading and building the whole tree
// again. With the caches off (a period of 0) every read asks the version, so an answer is never
// older than the data; with them on, nothing changes within the period. One exception is bounded:
// with a read replica the version (primary) and the data (replica) can come from two servers, and
// data a replica had not caught up with would be kept under the new version; so nothing is kept
// longer than MAX_AGE_MS past its load, whatever the version says.

export type ReferenceName = CatalogueReferenceVersionTable['name'];

/** The longest a loaded value is kept, however long its version stands. */
const MAX_AGE_MS = 60_000;

export interface ReferenceCache<K, V> {
  /**
   * The value for `key`; `version`, when given, is the current version as a statement of the caller
   * read it just now (before any of the data it goes with), used instead of reading it again.
   */
  get(key: K, version?: number): Promise<V>;
}

/**
 * The current version of a kind of reference data (undefined only in a database without the table's
 * rows); on `db` when given (a transaction: the basket's writes read 'price' inside theirs).
 */
export function referenceVersions(database: DatabaseHandle): (name: ReferenceName, db?: Db) => Promise<number | undefined> {
  const read = preparedQuery(database, (db, name: ReferenceName) =>
    db.selectFrom('catalogue_reference_version').select('version').where('name', '=', name),
  );
  return async (name, db) => {
    const [row] = await (db ? read.on(db, name) : read(name));
    return row === undefined ? undefined : Number(row.version);
  };
}

/**
 * Keeps what `load` gives per key for `ttlMs`; after that the value is kept on as long as the
 * version of `name` has not changed, and loaded again when it has. The keys are few (store x language).
 */
export function referenceCache<K, V>(
  ttlMs: number,
  version: () => Promise<number | undefined>,
  load: (key: K) => Promise<V>,
  statsName: string,
): ReferenceCache<K, V> {
  const entries = new Map<K, { value: V; version: number; expires: number; loadedAt: number }>();
  const stats = cacheStats(statsName);
  return {
    async get(key, known) {
      const now = Date.now();
      const kept = entries.get(key);
      if (kept !== undefined && kept.expires > now) {
        stats.hits += 1;
        return kept.value;
      }
      // The version is read before the data: a change landing in between makes the next read load again.
      const current = known ?? (await version());
      if (kept !== undefined && current !== undefined && kept.version === current && now - kept.loadedAt < MAX_AGE_MS) {
        stats.hits += 1;
        kept.expires = now + ttlMs;
        return kept.value;
      }
      stats.misses += 1;
      const value = await load(key);
      if (current !== undefined) entries.set(key, { value, version: current, expires: now + ttlMs, loadedAt: now });
      return value;
    },
  };
}
