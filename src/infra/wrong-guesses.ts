import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { addressKey } from './address-key.js';
import { countedHits, countHit, rateLimited, type RateLimit } from './rate-limit.js';

// Links whose credential is in the link itself (an order's checksum, a signed download token) can
// be tried by anyone, without an account. Each is a full HMAC-SHA256 compared in constant time, so
// guessing one is not feasible; an address that keeps presenting wrong ones is refused all the same
// (429 until its window ends, right links too, as a login throttle would), one count shared by
// every such link. Only wrong credentials count: a shopper following good links is never slowed.
// The check before the work is a read, the count after a failure one upsert on the database (not in
// the caller's transaction, which a refusal rolls back); parallel guesses of one address may each
// pass the check before any is counted, so the limit may be passed by as many as run at once.

export interface WrongGuesses {
  /** Refuses (429) an address that has presented `limit.max` wrong credentials in the current window. */
  admit(address: string, now: number): Promise<void>;
  /** Counts one wrong credential presented by the address. */
  missed(address: string, now: number): Promise<void>;
  /**
   * `work` for an admitted address; a failure that `wasWrong` tells was a wrong credential is counted once
   * `work` has ended (outside its transaction) and rethrown.
   */
  checked<T>(address: string, now: number, work: () => Promise<T>, wasWrong: (error: unknown) => boolean): Promise<T>;
}

export function wrongGuesses(db: Kysely<Database>, limit: RateLimit): WrongGuesses {
  const keyOf = (address: string) => `link-guess:ip:${addressKey(address)}`;
  return {
    async admit(address, now) {
      const counted = await countedHits(db, keyOf(address), limit, now);
      if (counted.hits >= limit.max) throw rateLimited(counted.secondsLeft);
    },
    async missed(address, now) {
      await countHit(db, keyOf(address), limit, now);
    },
    async checked(address, now, work, wasWrong) {
      await this.admit(address, now);
      try {
        return await work();
      } catch (error) {
        if (wasWrong(error)) await this.missed(address, now);
        throw error;
      }
    },
  };
}
