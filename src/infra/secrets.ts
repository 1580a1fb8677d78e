import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';

// Signed links (order checksums, unsubscribe links, download links) share two things: a server
// secret that every process agrees on, and a hex HMAC compared in constant time.

/**
 * The configured secret, else the one stored under `name` (made on first use; the first process
 * to store it wins), so a fresh install's processes agree on it without configuration.
 */
export async function sharedSecret(db: Db, name: string, configured: string | undefined, now: number): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto('app_secret')
    .values({ name, value: randomBytes(32).toString('hex'), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('app_secret').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

/** HMAC-SHA256 of `text` with `secret`, as 64 hex digits. */
export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** Whether `given` is the hex HMAC `expected` (anything but 64 hex digits is not; constant time). */
export function sameHmacHex(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}
