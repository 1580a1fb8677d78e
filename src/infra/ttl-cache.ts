/**
 * Keeps what `load` returns for a key during `ttlMs`. For settings and reference data read on
 * every request; every process has its own copy, so a change elsewhere shows within `ttlMs`.
 * With a TTL of 0 nothing is kept.
 */
import { cacheStats } from './metrics/cache-stats.js';

export interface TtlCache<K, V> {
  get(key: K): Promise<V>;
  /** The value kept for `key` if it is still fresh, without loading; `undefined` when none is. */
  peek(key: K): { value: V } | undefined;
  clear(): void;
}

/** `name` reports its hits and misses in /metrics (storefront_cache_hit_ratio). */
export function ttlCache<K, V>(ttlMs: number, load: (key: K) => Promise<V>, name?: string): TtlCache<K, V> {
  const entries = new Map<K, { value: V; expires: number }>();
  const stats = cacheStats(name);
  return {
    async get(key) {
      const now = Date.now();
      const cached = entries.get(key);
      if (cached !== undefined && cached.expires > now) {
        stats.hits += 1;
        return cached.value;
      }
      stats.misses += 1;
      const value = await load(key);
      if (ttlMs > 0) entries.set(key, { value, expires: now + ttlMs });
      return value;
    },
    peek(key) {
      const cached = entries.get(key);
      return cached !== undefined && cached.expires > Date.now() ? cached : undefined;
    },
    clear() {
      entries.clear();
    },
  };
}
