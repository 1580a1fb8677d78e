import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';

// The SQL of the campaigns import (campaigns.ts) beside its generic upsert: the products a
// campaign prices, whose update time moves when the campaign's prices or window change (by the
// jobs the line queues, campaigns.jobs.ts).

/** The products the campaign has a price for (any customer kind). */
export async function campaignProductIds(trx: Db, campaignId: number): Promise<number[]> {
  const rows = await trx.selectFrom('campaign_price').select('product_id').where('campaign_id', '=', campaignId).execute();
  return rows.map((row) => Number(row.product_id));
}

/**
 * Moves the products' update time to `now`, never back (a later write may have stamped one
 * already): a campaign's price is in the data export's product item (discountPrice), which
 * `updatedFrom` finds by it. At most STAMP_BATCH ids a call (campaigns.jobs.ts), one statement, within
 * SQLite's limit on parameters. Returns how many it moved. On PostgreSQL the rows are locked in id
 * order first, as every writer of several products' rows takes them (a checkout too): the UPDATE
 * alone locks them in the order its plan meets them (a small table's heap order, not the ids' once
 * a row was rewritten), and a checkout of two of them could wait for it while it waited for the
 * checkout, which PostgreSQL then ended (test/orders/checkout-during-campaign-stamps.test.ts).
 */
export async function stampCampaignProducts(trx: Db, productIds: readonly number[], now: number): Promise<number> {
  if (productIds.length === 0) return 0;
  await lockRowsOnPostgres(trx, trx.selectFrom('product').select('id').where('id', 'in', productIds).orderBy('id'), 'no key update');
  const result = await trx
    .updateTable('product')
    .set({ updated_at: now })
    .where('id', 'in', productIds)
    .where('updated_at', '<', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
