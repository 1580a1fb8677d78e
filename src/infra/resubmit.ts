import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

// A double click, or a retry after a timeout on a poor connection, sends the same request again
// within seconds or a minute or two. Where a request makes something that cannot be looked up by
// what it holds (a queued job, a mail), this tells the first of its kind from a repeat: the
// submission's key is kept with the time it was first seen (in rate_limit, pruned after a day), and
// the same key again within the window is a repeat. Call it in the transaction of the work it
// guards: the upsert takes the key's row, so of two at once the second waits for the first to
// commit and sees it (PostgreSQL; SQLite's write transactions are serial), and work that rolls
// back takes its key with it, so a retry after a failure is not taken for a repeat.

/** How long the same submit again is a repeat: a double click arrives within a second, a retry within a minute or two. */
export const RESUBMIT_WINDOW_MS = 5 * 60_000;

/** The key of a submission: its scope and a hash of what identifies it (who sent what). */
export function submissionKey(scope: string, parts: unknown): string {
  return `resubmit:${scope}:${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`;
}

/**
 * True for the first submission with this key in `windowMs` (counted from that first one), false
 * for a repeat. Past the window the same key is a first submission again.
 */
export async function isFirstSubmission(trx: Db, key: string, now: number, windowMs = RESUBMIT_WINDOW_MS): Promise<boolean> {
  const fresh = sql<boolean>`rate_limit.window_start <= ${now - windowMs}`;
  const row = await trx
    .insertInto('rate_limit')
    .values({ key, window_start: now, hits: 1 })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet({
        hits: sql<number>`case when ${fresh} then 1 else rate_limit.hits + 1 end`,
        window_start: sql<number>`case when ${fresh} then ${now} else rate_limit.window_start end`,
      }),
    )
    .returning(['hits'])
    .executeTakeFirstOrThrow();
  return Number(row.hits) === 1;
}

/**
 * Whether a submission with this key was recorded (isFirstSubmission) within the window, without
 * recording one: for a request whose repeat cannot be told from its own data, because the first
 * one used it up (a link's token), so that the repeat answers what the first did.
 */
export async function submittedWithin(db: Db, key: string, now: number, windowMs = RESUBMIT_WINDOW_MS): Promise<boolean> {
  const row = await db
    .selectFrom('rate_limit')
    .select('key')
    .where('key', '=', key)
    .where('window_start', '>', now - windowMs)
    .executeTakeFirst();
  return row !== undefined;
}
