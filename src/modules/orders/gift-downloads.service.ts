import type { Db } from '../../db/database.js';
import { forbidden, notFound } from '../../infra/domain-error.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import { lastLocalDay } from '../../infra/shop-time.js';
import type { WrongGuesses } from '../../infra/wrong-guesses.js';
import { giftReceiverOf } from './entitlements.repository.js';
import type { GiftKey } from './gift-key.js';

// Who may take the e-books and audiobooks an order bought for someone else: the holder of the receiver's key
// (their order mail's link), until its last day and while the receiver's data is kept. What the order gives
// and its links are the downloads module's.

/** What the receiver's request presents: the key's text, in which store (its header), from which address, when. */
export interface GiftAsk {
  key: string;
  storeCode: string;
  ip: string;
  now: number;
}

/**
 * The order whose downloads the key gives now. A key that is not genuine is a 404 counted against the address
 * (as a wrong checksum); a genuine one asked in another store than its order's a 404 too, uncounted (an order of
 * another store is not found, as on GET /order/{code}/download: the receiver's page is the order's store's
 * front-end); one past its last day a 403 naming that day; one whose receiver's data was erased, or an order
 * bought for nobody, a 403.
 */
export async function giftOrderOf(
  db: Db,
  keys: { verify(text: string): GiftKey | undefined },
  guesses: WrongGuesses,
  ask: GiftAsk,
): Promise<number> {
  const key = await guesses.verified(ask.ip, ask.now, keys.verify(ask.key), () => notFound('orders.giftDownloadsInvalid'));
  const receiver = await giftReceiverOf(db, key.orderId);
  if (receiver !== undefined && receiver.storeCode !== ask.storeCode) throw notFound('orders.giftDownloadsInvalid');
  if (key.expiresAt <= ask.now) throw forbidden('orders.giftDownloadsExpired', { date: lastLocalDay(key.expiresAt) });
  if (receiver === undefined || isErasedEmail(receiver.receiverEmail)) throw forbidden('orders.giftDownloadsEnded');
  return key.orderId;
}
