import type { Generated } from 'kysely';

/** A downloadable file of a product, in one format. */
export interface ProductFileTable {
  id: Generated<number>;
  product_id: number;
  format: string;
  /** Its key in the file store. */
  storage_key: string;
  content_type: string;
  size_bytes: number;
  filename: string;
  created_at: number;
  updated_at: number;
}

/** Downloads used of one entitlement (an order's digital product), whatever its format. */
export interface DownloadCountTable {
  order_id: number;
  product_id: number;
  used: number;
  updated_at: number;
}

/** Downloads used of one subscription take (what a subscription gave), whatever its format. */
export interface DownloadTakeCountTable {
  take_id: number;
  used: number;
  updated_at: number;
}

/** A signed link that has counted its download, and the bytes it has served. */
export interface DownloadLinkUseTable {
  link_id: string;
  /** The purchase's order; 0 for a link to a subscription take (take_id). */
  order_id: number;
  take_id: number | null;
  product_id: number;
  expires_at: number;
  /** What its requests were answered with, in bytes; at most DOWNLOAD_LINK_BUDGET times the file's size. */
  bytes_served: Generated<number>;
}

/**
 * One item of a client's download list (GET /download): a purchase's or a held take's file, kept
 * by triggers (migration 2026_11_28_0600) in the list's order (download_item_list_idx).
 */
export interface DownloadItemTable {
  /** The purchase's order; 0 for a take. */
  order_id: number;
  /** The subscription take; 0 for a purchase. */
  take_id: number;
  file_id: number;
  product_id: number;
  client_account_id: number;
  /** The order's store, or the take's. */
  store_code: string;
  /** When it was bought (the entitlement's created_at) or taken. */
  granted_at: number;
  /** The take's subscription, which gives access or not as the list is read; null for a purchase. */
  subscription_id: number | null;
}

export interface DownloadsTables {
  product_file: ProductFileTable;
  download_count: DownloadCountTable;
  download_link_use: DownloadLinkUseTable;
  download_take_count: DownloadTakeCountTable;
  download_item: DownloadItemTable;
}
