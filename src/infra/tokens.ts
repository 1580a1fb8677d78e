import { randomBytes } from 'node:crypto';
import { digest } from './digest.js';

/** SHA-256 hex of a token: what is stored and looked up; the token itself never is. */
export function hashToken(token: string): string {
  return digest('sha256', token, 'hex');
}

/** A new opaque token (32 random bytes, base64url) and its hash. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

/** Only strings shaped like our tokens are worth a database look-up. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/**
 * Whether a credential's `last used` time is worth writing again: at most once a minute. Writing it
 * at every request made each of an operator's or a feed client's requests a write transaction (an
 * import of many files, a feed polled every second), for a time people read in days.
 */
export function lastUseIsStale(lastUsedAt: number | null, now: number): boolean {
  return lastUsedAt === null || now - lastUsedAt >= 60_000;
}
