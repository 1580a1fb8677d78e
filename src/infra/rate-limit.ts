import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { deleteInBatches } from '../db/batched-delete.js';
import type { Database } from '../db/schema.js';
import { addressKey } from './address-key.js';
import { DomainError } from './domain-error.js';

/** At most `max` hits in a fixed window of `windowMs`. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

/**
 * Counts a hit on `key` in a fixed window and throws a 429 with Retry-After past the limit.
 * Counters live in the database so the limit holds across API processes; one upsert a hit. It runs
 * on the database, never in the transaction of the work it guards: a hit counts even when that
 * work fails (a wrong password). `now` is the caller's action time.
 */
export async function consumeRateLimit(db: Kysely<Database>, key: string, limit: RateLimit, now = Date.now()): Promise<void> {
  const hits = await countHit(db, key, limit, now);
  if (hits > limit.max) throw rateLimited(secondsLeftInWindow(limit, now));
}

/**
 * Throws the 429 that consumeRateLimit would answer on `key` now, without counting a hit: a caller
 * already past the limit is refused before any work and without a write. No limit by itself
 * (requests sent at once all read the count before any is counted): the guarded work must still be
 * counted by consumeRateLimit before it runs.
 */
export async function checkRateLimit(db: Kysely<Database>, key: string, limit: RateLimit, now = Date.now()): Promise<void> {
  const { hits, secondsLeft } = await countedHits(db, key, limit, now);
  if (hits >= limit.max) throw rateLimited(secondsLeft);
}

/** A hook that counts each request against its client address (the account and sign-in endpoints). */
export function perIpRateLimit(db: Kysely<Database>, limit: RateLimit) {
  return async (request: { ip: string; actionTime: number }): Promise<void> => {
    await consumeRateLimit(db, `auth:ip:${addressKey(request.ip)}`, limit, request.actionTime);
  };
}

/** Removes counters of windows that have ended; run periodically. */
export async function pruneRateLimits(db: Kysely<Database>, olderThan: number): Promise<number> {
  return deleteInBatches(db, 'rate_limit', {
    key: 'key',
    where: (eb) => eb('window_start', '<', olderThan),
    orderBy: 'window_start',
  });
}

// For limits counted after the fact (failed logins): look at a counter first, count a hit only
// when the guarded work failed. Keys and windows are consumeRateLimit's.

/** Counts a hit on `key` without refusing anything; answers the hits of the current window. */
export async function countHit(db: Kysely<Database>, key: string, limit: RateLimit, now: number): Promise<number> {
  const windowStart = now - (now % limit.windowMs);
  const row = await db
    .insertInto('rate_limit')
    .values({ key: storedRateLimitKey(key), window_start: windowStart, hits: 1 })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet({
        hits: sql<number>`case when rate_limit.window_start = ${windowStart} then rate_limit.hits + 1 else 1 end`,
        window_start: windowStart,
      }),
    )
    .returning(['hits'])
    .executeTakeFirstOrThrow();
  return row.hits;
}

/** The hits counted on `key` in the current window (without counting one) and the seconds until the window ends. */
export async function countedHits(
  db: Kysely<Database>,
  key: string,
  limit: RateLimit,
  now: number,
): Promise<{ hits: number; secondsLeft: number }> {
  const windowStart = now - (now % limit.windowMs);
  const row = await db
    .selectFrom('rate_limit')
    .select(['hits', 'window_start'])
    .where('key', '=', storedRateLimitKey(key))
    .executeTakeFirst();
  const hits = row !== undefined && Number(row.window_start) === windowStart ? row.hits : 0;
  return { hits, secondsLeft: secondsLeftInWindow(limit, now) };
}

/**
 * Takes back one hit counted on `key` in the current window by consumeRateLimit (a limit on
 * failures counts every attempt first, atomically, and refunds the ones that succeeded, so
 * parallel attempts can never all pass a check made before any of them was counted).
 */
export async function refundHit(db: Kysely<Database>, key: string, limit: RateLimit, now: number): Promise<void> {
  const windowStart = now - (now % limit.windowMs);
  await db
    .updateTable('rate_limit')
    .set({ hits: sql<number>`hits - 1` })
    .where('key', '=', storedRateLimitKey(key))
    .where('window_start', '=', windowStart)
    .where('hits', '>', 0)
    .execute();
}

/** The 429 with Retry-After that every limit answers. */
export function rateLimited(seconds: number): DomainError {
  return new DomainError('rate-limited', 'error.tooManyRequests', { seconds }, seconds);
}

function secondsLeftInWindow(limit: RateLimit, now: number): number {
  const windowStart = now - (now % limit.windowMs);
  return Math.max(1, Math.ceil((windowStart + limit.windowMs - now) / 1000));
}

/**
 * A counter's key as stored: its scope (the key's first two parts, `auth:ip`, `back-in-stock:email`,
 * which name no one) and a SHA-256 of the whole key. Keys hold login emails and client addresses;
 * kept as they are, a day's counters would be a list of who asked for what from where, readable by
 * anyone who sees the table and left behind by an erasure. A hash is not a secret (a reader can
 * test a guess), but it names no one at a glance and still counts alike in every process.
 */
export function storedRateLimitKey(key: string): string {
  return `${key.split(':', 2).join(':').slice(0, 100)}#${createHash('sha256').update(key).digest('base64url')}`;
}
