import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { addressKey } from '../../infra/address-key.js';
import { countedHits, countHit, rateLimited, refundHit } from '../../infra/rate-limit.js';
import type { AuthRateLimits } from './accounts.config.js';
import { normaliseEmail } from '../../infra/email-address.js';

// Failed logins are counted per (email, client address) and per email. Counting every attempt
// per email, before the password check, let anyone lock an owner out by guessing wrong with
// their email; now:
// - an address that failed loginFailuresPerAddress times for an email is refused for that email
//   until the window ends;
// - past loginFailuresPerEmail failures for the email from all addresses (a distributed guess),
//   every address that has failed for it is refused, and an address that has not gets its
//   attempts: guessing is slowed to one try per address, the owner's right password from a clean
//   address still logs in.
// The per-address limit on every account endpoint (authPerIp) holds besides.

type Limits = Pick<AuthRateLimits, 'loginFailuresPerAddress' | 'loginFailuresPerEmail'>;

export interface LoginAttempt {
  email: string;
  /** The client address, as the app's trustProxy setting resolves it. */
  address: string;
}

const keysOf = (attempt: LoginAttempt) => {
  const email = `login:failed:${normaliseEmail(attempt.email)}`;
  return { email, pair: `${email}@${addressKey(attempt.address)}` };
};

/**
 * Admits a login attempt or answers 429. The attempt is counted for the pair first, in one atomic
 * upsert, so that parallel guesses cannot all pass a check made before any of them is counted;
 * settleLogin takes the count back when the password was right. A refused attempt is not counted.
 */
export async function admitLogin(db: Kysely<Database>, limits: Limits, attempt: LoginAttempt, now: number): Promise<void> {
  const keys = keysOf(attempt);
  const pairHits = await countHit(db, keys.pair, limits.loginFailuresPerAddress, now);
  const earlierFailures = pairHits - 1;
  const email = await countedHits(db, keys.email, limits.loginFailuresPerEmail, now);
  const refused = pairHits > limits.loginFailuresPerAddress.max || (email.hits >= limits.loginFailuresPerEmail.max && earlierFailures > 0);
  if (!refused) return;
  await refundHit(db, keys.pair, limits.loginFailuresPerAddress, now);
  const pair = await countedHits(db, keys.pair, limits.loginFailuresPerAddress, now);
  throw rateLimited(Math.min(pair.secondsLeft, email.secondsLeft));
}

/**
 * After the password check of an admitted attempt: a failure (wrong password, unknown email: the
 * same) also counts for the email; a right password takes the pair's count back.
 */
export async function settleLogin(
  db: Kysely<Database>,
  limits: Limits,
  attempt: LoginAttempt,
  now: number,
  failed: boolean,
): Promise<void> {
  const keys = keysOf(attempt);
  if (failed) await countHit(db, keys.email, limits.loginFailuresPerEmail, now);
  else await refundHit(db, keys.pair, limits.loginFailuresPerAddress, now);
}
