// Search index (migration 1000); the text index tables are engine-specific, see the engines.
// Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';
import type { ProductTypeCode } from '../../db/product-types.js';
import type { Availability, DeliveryTime } from '../catalogue/index.js';

export interface SearchStateTable {
  /** Always 1: one row. */
  id: number;
  status: 'ready' | 'building';
  /** When the status last changed, or a build last made progress (Unix ms). */
  changed_at: number;
}

/**
 * Products, persons, publishers and series whose text changed and is not yet in the index;
 * `visibility`: products whose hidden words changed (SQLite, migration 1710), which no search waits for.
 */
export interface SearchPendingTable {
  kind: 'product' | 'visibility' | 'person' | 'publisher' | 'series';
  entity_id: number;
}

/** The product columns search filters and sorts on, kept by triggers; `stores`: store codes separated by spaces. */
export interface SearchProductTable {
  id: number;
  stores: string;
  is_active: BooleanColumn;
  hidden_web: BooleanColumn;
  hidden_business: BooleanColumn;
  type: ProductTypeCode;
  language: string | null;
  binding_code: string | null;
  publisher_id: number | null;
  series_id: number | null;
  availability: Availability;
  delivery_time: DeliveryTime | null;
  shop_price_cents: number;
  original_price_cents: number | null;
  wholesale_price_cents: number | null;
  vat_rate_percent: number;
  discount_percent: number;
  sales_count: number;
  released_at: number | null;
  name: string;
  /**
   * The folded title (query-text.ts titleKey) that an exact title match compares, written when the product's
   * document is folded (migration 2026_12_02_0700); '' until then, or past MAX_TITLE_KEY_CHARS.
   */
  title_key: Generated<string>;
}

export interface SearchTables {
  search_state: SearchStateTable;
  search_pending: SearchPendingTable;
  search_product: SearchProductTable;
}
