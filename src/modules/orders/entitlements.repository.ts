import type { Db } from '../../db/database.js';
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
