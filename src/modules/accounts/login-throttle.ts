import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { countedHits, countHit, rateLimited } from '../../infra/rate-limit.js';
import type { AuthRateLimits } from './accounts.config.js';
import { normaliseEmail } from './accounts.repository.js';

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
  return { email, pair: `${email}@${attempt.address}` };
};

/** 429 when this address may not try this email now; counts nothing. */
export async function refuseThrottledLogin(db: Kysely<Database>, limits: Limits, attempt: LoginAttempt, now: number): Promise<void> {
  const keys = keysOf(attempt);
  const [pair, email] = await Promise.all([
    countedHits(db, keys.pair, limits.loginFailuresPerAddress, now),
    countedHits(db, keys.email, limits.loginFailuresPerEmail, now),
  ]);
  if (pair.hits >= limits.loginFailuresPerAddress.max) throw rateLimited(pair.secondsLeft);
  if (email.hits >= limits.loginFailuresPerEmail.max && pair.hits > 0) throw rateLimited(Math.min(pair.secondsLeft, email.secondsLeft));
}

/** Counts a failed login (wrong password, unknown email: the same) for the pair and for the email. */
export async function countFailedLogin(db: Kysely<Database>, limits: Limits, attempt: LoginAttempt, now: number): Promise<void> {
  const keys = keysOf(attempt);
  await countHit(db, keys.pair, limits.loginFailuresPerAddress, now);
  await countHit(db, keys.email, limits.loginFailuresPerEmail, now);
}
