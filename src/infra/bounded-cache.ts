/**
 * A per-process cache for data read on hot paths (catalogue rows, list pages, counts): entries live
 * `ttlMs`, at most `maxEntries` are kept (the oldest inserted go first), and concurrent misses of one
 * key share one load. With a TTL of 0 nothing is kept, so every read goes to the database.
 * Another process's change shows within `ttlMs`; nothing here is needed by another process.
 */
export interface BoundedCache<K, V> {
  get(key: K, load: () => Promise<V>): Promise<V>;
  /** Values for many keys; the misses are loaded together by `loadMany`, which returns them by key. */
  getMany(keys: readonly K[], loadMany: (missing: K[]) => Promise<Map<K, V>>): Promise<Map<K, V>>;
  /** The value when one is kept and fresh; nothing is loaded (a lookup all the same: counted as a hit or a miss). */
  peek(key: K): V | undefined;
  /**
   * Keeps a value read elsewhere, for `lifetimeMs` when shorter than the cache's TTL (an answer with
   * its own max-age); a load that began before it and ends after it does not replace it.
   */
  set(key: K, value: V, lifetimeMs?: number): void;
  clear(): void;
}

import { cacheStats } from './metrics/cache-stats.js';

interface Entry<V> {
  value: V;
  expires: number;
  /** When it was kept, in the cache's own count of keeps: a load never overwrites a later `set`. */
  kept: number;
}

/** `name` reports its hits and misses in /metrics (storefront_cache_hit_ratio). */
export function boundedCache<K, V>(ttlMs: number, maxEntries: number, name?: string): BoundedCache<K, V> {
  const entries = new Map<K, Entry<V>>();
  const stats = cacheStats(name);
  const loading = new Map<K, Promise<V>>();

  const fresh = (key: K, now: number): Entry<V> | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > now) return entry;
    entries.delete(key);
    return undefined;
  };

  let keeps = 0;
  /** Keeps the value; one loaded since `loadStarted` does not replace a value set after the load began (it read older data). */
  const keep = (key: K, value: V, now: number, loadStarted = Infinity, lifetimeMs = ttlMs) => {
    if (ttlMs <= 0 || lifetimeMs <= 0) return;
    const current = entries.get(key);
    if (current !== undefined && current.kept > loadStarted) return;
    entries.delete(key);
    if (entries.size >= maxEntries) {
      // Map iteration is insertion order: the first key is the oldest.
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    keeps += 1;
    entries.set(key, { value, expires: now + Math.min(ttlMs, lifetimeMs), kept: keeps });
  };

  return {
    async get(key, load) {
      const now = Date.now();
      const hit = fresh(key, now);
      if (hit) {
        stats.hits += 1;
        return hit.value;
      }
      stats.misses += 1;
      const pending = loading.get(key);
      if (pending) return pending;
      const started = keeps;
      const promise = load().then(
        (value) => {
          loading.delete(key);
          keep(key, value, now, started);
          return value;
        },
        (error: unknown) => {
          loading.delete(key);
          throw error;
        },
      );
      if (ttlMs > 0) loading.set(key, promise);
      return promise;
    },
    async getMany(keys, loadMany) {
      const now = Date.now();
      const found = new Map<K, V>();
      const missing: K[] = [];
      // A key the list names twice is loaded once (a set only when something is missing).
      let asked: Set<K> | undefined;
      for (const key of keys) {
        const hit = fresh(key, now);
        if (hit) found.set(key, hit.value);
        else if (!(asked ??= new Set()).has(key)) {
          asked.add(key);
          missing.push(key);
        }
      }
      stats.hits += found.size;
      stats.misses += missing.length;
      if (missing.length > 0) {
        const started = keeps;
        const loaded = await loadMany(missing);
        for (const [key, value] of loaded) {
          found.set(key, value);
          keep(key, value, now, started);
        }
      }
      return found;
    },
    peek(key) {
      const hit = fresh(key, Date.now());
      if (hit) stats.hits += 1;
      else stats.misses += 1;
      return hit?.value;
    },
    set(key, value, lifetimeMs) {
      keep(key, value, Date.now(), Infinity, lifetimeMs);
    },
    clear() {
      entries.clear();
    },
  };
}

/**
 * One boundedCache per group (a store), made on first use, each bounded on its own: the keys stay
 * plain numbers (a composed `store:id` string was built and hashed per product per request, a tenth
 * of a list of 50 cards). The groups must be few and known (store codes).
 */
export function boundedCaches<G, K, V>(ttlMs: number, maxEntriesEach: number, name?: string): (group: G) => BoundedCache<K, V> {
  const caches = new Map<G, BoundedCache<K, V>>();
  return (group) => {
    let cache = caches.get(group);
    if (cache === undefined) {
      cache = boundedCache<K, V>(ttlMs, maxEntriesEach, name);
      caches.set(group, cache);
    }
    return cache;
  };
}
