// A client's wishlist, per store, and when its client was last mailed its offers. Conventions of
// every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';

export interface WishlistItemTable {
  id: Generated<number>;
  client_account_id: number;
  store_code: string;
  product_id: number;
  created_at: number;
  /**
   * The price the shop remembers for the item (cents, the client's price): the one when it was
   * added, raised by a scan that finds it higher, lowered by an offer mail to the price it told.
   * Null on rows from before wishlist offers, until the first scan (migration 2026_12_02_0800).
   */
  offer_price_cents: ColumnType<number | null, number | null | undefined, number | null>;
}

/** When the client account's last wishlist offer mail was queued: one mail per interval. */
export interface WishlistOfferMailTable {
  client_account_id: number;
  queued_at: number;
}

export interface WishlistTables {
  wishlist_item: WishlistItemTable;
  wishlist_offer_mail: WishlistOfferMailTable;
}
