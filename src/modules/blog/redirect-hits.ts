import type { Db } from '../../db/database.js';
import { sql } from 'kysely';
import { addressKey } from '../../infra/address-key.js';
import { tokenBuckets } from '../../infra/token-bucket.js';
import type { BlogSection } from './blog.config.js';

// Redirect hits are counted in memory and added to `redirect.hits` in batches: one increment per
// redirect per flush instead of a write per request, so a popular old URL never turns every GET
// into a contended row update. Increments (hits + n) add up across processes; a process that dies
// loses at most its last interval's counts. Whoever reads the counts flushes first (the admin read),
// and the app flushes when it closes.
//
// A hit is a shopper sent on from an old URL, not a request: what one client address repeats is
// counted up to caps (token buckets per process, like banner views': REDIRECT_HIT_CAP_PER_IP_REDIRECT
// and REDIRECT_HIT_CAP_PER_IP), so nobody inflates an old URL's count from one machine. Past them the
// answer is the same, uncounted: a shopper who follows an old link twice must be sent on both times.

export interface HitCounter {
  /** Counts a hit of the redirect from the client address, unless the address is past a cap. */
  record(redirectId: number, address: string, at: number): void;
  flush(): Promise<void>;
}

export type HitCaps = Pick<BlogSection, 'redirectHitsPerAddressRedirect' | 'redirectHitsPerAddress'>;

export const HIT_FLUSH_INTERVAL_MS = 5_000;

export function createHitCounter(db: Db, caps: HitCaps, onError: (error: unknown) => void, intervalMs = HIT_FLUSH_INTERVAL_MS): HitCounter {
  const perAddressRedirect = tokenBuckets(caps.redirectHitsPerAddressRedirect);
  const perAddress = tokenBuckets(caps.redirectHitsPerAddress);
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
    record(redirectId, address, at) {
      const client = addressKey(address);
      // The redirect's own cap first: repeats of one old URL do not use up the address's cap for the others.
      if (perAddressRedirect.take(`${client} ${redirectId}`, 1, at) > 0 || perAddress.take(client, 1, at) > 0) return;
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
