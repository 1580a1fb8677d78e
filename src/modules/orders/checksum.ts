import type { Db } from '../../db/database.js';
import { hmacHex, sameHmacHex, sharedSecret } from '../../infra/secrets.js';

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
  const of = (orderId: number) => hmacHex(secret, `order:${orderId}`);
  return { of, verify: (orderId, checksum) => sameHmacHex(of(orderId), checksum) };
}

/** ORDER_CHECKSUM_SECRET, else the one the service made and keeps (app_secret). */
export function checksumSecret(db: Db, configured: string | undefined, now: number): Promise<string> {
  return sharedSecret(db, SECRET_NAME, configured, now);
}
