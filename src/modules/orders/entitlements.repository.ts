import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { isDownloadLine } from './download-lines.js';

// What an order gives to download (order_entitlement; the downloads module reads it): granted when
// the paid order is processed, taken back when the order is given up after all (FAILED, CANCELLED).

/** Entitlements of the order's downloads (isDownloadLine); a second run adds nothing (primary key order, product). */
export async function grantEntitlements(
  trx: Db,
  order: { id: number; client_account_id: number | null },
  lines: ReadonlyArray<{ product_id: number; product_type: string; is_digital: number | boolean }>,
  now: number,
): Promise<void> {
  const products = [...new Set(lines.filter(isDownloadLine).map((line) => Number(line.product_id)))];
  if (products.length === 0) return;
  await trx
    .insertInto('order_entitlement')
    .values(products.map((product_id) => ({ order_id: order.id, product_id, client_account_id: order.client_account_id, created_at: now })))
    .onConflict((oc) => oc.columns(['order_id', 'product_id']).doNothing())
    .execute();
}

/**
 * A cancelled order (refunded in full, or given up) or a failed one leaves nothing to download: its entitlements go,
 * so the download list drops them and a link already handed out is refused. The downloads already
 * counted stay (download_count), so a late settle that revives the order grants them again as they were.
 */
export async function revokeEntitlements(trx: Db, orderId: number): Promise<void> {
  await trx.deleteFrom('order_entitlement').where('order_id', '=', orderId).execute();
}

/** Grants a revived order's entitlements again (a FAILED order the back office reported it has), as processing granted them. */
export async function grantEntitlementsAgain(trx: Db, orderId: number, now: number): Promise<void> {
  const order = await trx.selectFrom('customer_order').select(['id', 'client_account_id']).where('id', '=', orderId).executeTakeFirst();
  if (!order) return;
  const lines = await trx
    .selectFrom('order_line')
    .select(['product_id', 'product_type', 'is_digital'])
    .where('order_id', '=', orderId)
    .execute();
  await grantEntitlements(trx, { id: Number(order.id), client_account_id: order.client_account_id }, lines, now);
}

/**
 * Records the receiver of an order's downloads bought for them (an order whose mail goes to a receiver
 * too: gift-downloads.ts), once; nothing for an order without downloads.
 */
export async function recordGiftReceiver(
  trx: Db,
  order: { id: number; shipping_email: string },
  lines: ReadonlyArray<{ product_type: string; is_digital: number | boolean }>,
  now: number,
): Promise<void> {
  if (!lines.some(isDownloadLine)) return;
  await trx
    .insertInto('order_gift_download')
    .values({ order_id: order.id, receiver_email: normaliseEmail(order.shipping_email), created_at: now })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .execute();
}

/** The receiver of the order's downloads, if it was bought for one, with the order's store. */
export async function giftReceiverOf(
  db: Db,
  orderId: number,
): Promise<{ receiverEmail: string; createdAt: number; storeCode: string } | undefined> {
  const row = await db
    .selectFrom('order_gift_download as g')
    .innerJoin('customer_order as o', 'o.id', 'g.order_id')
    .select(['g.receiver_email', 'g.created_at', 'o.store_code'])
    .where('g.order_id', '=', orderId)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { receiverEmail: row.receiver_email, createdAt: Number(row.created_at), storeCode: row.store_code };
}

/**
 * Records when the receiver's key ends, as the order mail that hands it out computed it (the first mail's: a mail
 * sent again computes the same end), for the receiver's "your data".
 */
export async function recordGiftKeyEnd(db: Db, orderId: number, expiresAt: number): Promise<void> {
  await db
    .updateTable('order_gift_download')
    .set({ expires_at: expiresAt })
    .where('order_id', '=', orderId)
    .where('expires_at', 'is', null)
    .execute();
}
