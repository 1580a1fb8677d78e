import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/database.js';

// The checksum of an order id: an HMAC with a server secret, so a link to an order's payment
// form or summary works for whoever has it (a guest has nothing else) and cannot be made for
// another order. The secret is ORDER_CHECKSUM_SECRET, or one the service makes once and keeps
// in the database, so that every process of a fresh install agrees on it.

const SECRET_NAME = 'order-checksum';

export interface OrderChecksum {
  of(orderId: number): string;
  /** Whether `checksum` is the one of `orderId` (compared in constant time). */
  verify(orderId: number, checksum: unknown): boolean;
}

export function orderChecksum(secret: string): OrderChecksum {
  const of = (orderId: number) => createHmac('sha256', secret).update(`order:${orderId}`).digest('hex');
  return {
    of,
    verify(orderId, checksum) {
      if (typeof checksum !== 'string' || !/^[0-9a-f]{64}$/.test(checksum)) return false;
      return timingSafeEqual(Buffer.from(of(orderId), 'hex'), Buffer.from(checksum, 'hex'));
    },
  };
}

/** The configured secret, else the stored one (made on first use; the first process to store it wins). */
export async function checksumSecret(db: Db, configured: string | undefined, now: number): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto('app_secret')
    .values({ name: SECRET_NAME, value: randomBytes(32).toString('hex'), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('app_secret').select('value').where('name', '=', SECRET_NAME).executeTakeFirstOrThrow();
  return row.value;
}
