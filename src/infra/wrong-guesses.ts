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
  /**
   * The verified credential (`verified`: its value, undefined or false when it did not verify) of an address
   * that may still guess: 429 past the limit, `refusal` (counted) for a wrong one.
   */
  verified<T>(address: string, now: number, verified: T | undefined | false, refusal: () => Error): Promise<T>;
  /**
   * `work` for an address that may still guess; a failure that `wasWrong` tells was a wrong credential is
   * counted once `work` has ended (outside its transaction) and rethrown.
   */
  checked<T>(address: string, now: number, work: () => Promise<T>, wasWrong: (error: unknown) => boolean): Promise<T>;
}

/** `name` keeps a count of its own: links by default; gateway callbacks that name no payment count apart. */
export function wrongGuesses(db: Kysely<Database>, limit: RateLimit, name = 'link-guess'): WrongGuesses {
  const keyOf = (address: string) => `${name}:ip:${addressKey(address)}`;
  /** Refuses (429) an address that has presented `limit.max` wrong credentials in the current window. */
  const admit = async (address: string, now: number) => {
    const counted = await countedHits(db, keyOf(address), limit, now);
    if (counted.hits >= limit.max) throw rateLimited(counted.secondsLeft);
  };
  const missed = (address: string, now: number) => countHit(db, keyOf(address), limit, now);
  return {
    async verified(address, now, verified, refusal) {
      await admit(address, now);
      if (verified === undefined || verified === false) {
        await missed(address, now);
        throw refusal();
      }
      return verified;
    },
    async checked(address, now, work, wasWrong) {
      await admit(address, now);
      try {
        return await work();
      } catch (error) {
        if (wasWrong(error)) await missed(address, now);
        throw error;
      }
    },
  };
}
