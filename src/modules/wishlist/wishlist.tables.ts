// A client's wishlist, per store. Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface WishlistItemTable {
  id: Generated<number>;
  client_account_id: number;
  store_code: string;
  product_id: number;
  created_at: number;
}

export interface WishlistTables {
  wishlist_item: WishlistItemTable;
}
