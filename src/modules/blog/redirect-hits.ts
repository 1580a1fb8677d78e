import type { Db } from '../../db/database.js';
import { sql } from 'kysely';

// Redirect hits are counted in memory and added to `redirect.hits` in batches: one increment per
// redirect per flush instead of a write per request, so a popular old URL never turns every GET
// into a contended row update. Increments (hits + n) add up across processes; a process that dies
// loses at most its last interval's counts. Whoever reads the counts flushes first (the admin read),
// and the app flushes when it closes.

export interface HitCounter {
  record(redirectId: number, at: number): void;
  flush(): Promise<void>;
}

export const HIT_FLUSH_INTERVAL_MS = 5_000;

export function createHitCounter(db: Db, onError: (error: unknown) => void, intervalMs = HIT_FLUSH_INTERVAL_MS): HitCounter {
  let pending = new Map<number, { hits: number; last: number }>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const write = async (batch: Map<number, { hits: number; last: number }>) => {
    for (const [id, { hits, last }] of batch) {
      try {
        await db
          .updateTable('redirect')
          .set({
            hits: sql<number>`hits + ${hits}`,
            last_hit_at: sql<number>`case when last_hit_at is null or last_hit_at < ${last} then ${last} else last_hit_at end`,
          })
          .where('id', '=', id)
          .execute();
      } catch (error) {
        onError(error);
      }
    }
  };

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = new Map();
    // Flushes run one after another, so a reader that flushes sees every earlier count written.
    running = running.then(() => (batch.size > 0 ? write(batch) : undefined));
    return running;
  };

  return {
    record(redirectId, at) {
      const entry = pending.get(redirectId);
      if (entry) {
        entry.hits += 1;
        entry.last = Math.max(entry.last, at);
      } else pending.set(redirectId, { hits: 1, last: at });
      if (!timer) {
        timer = setTimeout(() => void flush(), intervalMs);
        timer.unref();
      }
    },
    flush,
  };
}
