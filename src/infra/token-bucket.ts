import type { RateLimit } from './rate-limit.js';

/**
 * Per-key token buckets kept in this process's memory: a bucket holds up to `limit.max` tokens and
 * refills evenly, `limit.max` per `limit.windowMs`. Unlike rate-limit.ts (a fixed window counted in
 * the database, one write per hit, the same across processes) a take costs a map lookup. Use it
 * where the limit protects something of this process (its event loop) or where one database write
 * per request would cost more than the request itself; with P processes a key gets at most P times
 * the limit. At most `maxKeys` buckets are kept (the least recently used go first; a forgotten key
 * starts full again, so an attacker gains nothing from evicting its own).
 */
export interface TokenBuckets {
  /**
   * Takes `cost` tokens from the key's bucket at `now` (Unix ms) if it holds at least one token (a
   * bucket may go into debt by one expensive request). Returns 0 when taken, else the whole seconds
   * until the bucket holds a token again (Retry-After).
   */
  take(key: string, cost: number, now: number): number;
  /** Takes `cost` tokens whatever the bucket holds (work measured after it was done); it may go into debt. */
  charge(key: string, cost: number, now: number): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

export function tokenBuckets(limit: RateLimit, maxKeys = 100_000): TokenBuckets {
  const buckets = new Map<string, Bucket>();
  const perMs = limit.max / limit.windowMs;

  const current = (key: string, now: number): Bucket => {
    const bucket = buckets.get(key);
    if (bucket === undefined) {
      if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as string);
      const fresh = { tokens: limit.max, at: now };
      buckets.set(key, fresh);
      return fresh;
    }
    // Map order is insertion order: re-inserting keeps the busy keys last, the idle ones first out.
    buckets.delete(key);
    buckets.set(key, bucket);
    bucket.tokens = Math.min(limit.max, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = Math.max(bucket.at, now);
    return bucket;
  };

  return {
    take(key, cost, now) {
      const bucket = current(key, now);
      if (bucket.tokens >= 1) {
        bucket.tokens -= cost;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
    },
    charge(key, cost, now) {
      current(key, now).tokens -= cost;
    },
  };
}
