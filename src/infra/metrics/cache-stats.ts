/** Lookups of one named cache, counted by the cache itself (two additions, read when scraped). */
export interface CacheStats {
  hits: number;
  misses: number;
}

// Per name, not per cache object: a process (or a test run) makes caches again and again, and the
// set of names is fixed by the code, so this map stays small and nothing is kept for a dead cache.
const byName = new Map<string, CacheStats>();

/** The counters of the cache called `name`, shared by every cache of that name; a fresh, unreported pair without a name. */
export function cacheStats(name: string | undefined): CacheStats {
  if (name === undefined) return { hits: 0, misses: 0 };
  let stats = byName.get(name);
  if (stats === undefined) {
    stats = { hits: 0, misses: 0 };
    byName.set(name, stats);
  }
  return stats;
}

/** Every named cache's counters, for /metrics. */
export function namedCacheStats(): ReadonlyMap<string, CacheStats> {
  return byName;
}
