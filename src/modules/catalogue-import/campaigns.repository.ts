import type { Db } from '../../db/database.js';
import { chunks } from './write.js';

// The SQL of the campaigns import (campaigns.ts) beside its generic upsert: the products a
// campaign prices, whose update time moves when the campaign's prices or window change.

/** The products the campaign has a price for (any customer kind). */
export async function campaignProductIds(trx: Db, campaignId: number): Promise<number[]> {
  const rows = await trx.selectFrom('campaign_price').select('product_id').where('campaign_id', '=', campaignId).execute();
  return rows.map((row) => Number(row.product_id));
}

/**
 * Moves the products' update time, never back (a later write may have stamped one already): a
 * campaign's price is in the data export's product item (discountPrice), which `updatedFrom` finds
 * by it. In chunks: a campaign may price 100,000 products, more than SQLite takes as parameters.
 */
export async function stampCampaignProducts(trx: Db, productIds: readonly number[], now: number): Promise<void> {
  for (const part of chunks([...new Set(productIds)], 1000)) {
    await trx.updateTable('product').set({ updated_at: now }).where('id', 'in', part).where('updated_at', '<', now).execute();
  }
}
