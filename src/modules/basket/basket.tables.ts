// The basket's tables (migration 1200): baskets and their lines, discount codes, delivery methods
// and parcel machines. Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

export interface BasketTable {
  id: Generated<number>;
  store_code: string;
  /** A client's basket (one per account and store); null for a guest's. */
  client_account_id: number | null;
  /** A guest's basket: SHA-256 hex of its bearer token; null for a client's. */
  token_hash: string | null;
  /** Changes with every write: the ETag, and what If-Match is compared with. */
  version: number;
  discount_code_id: number | null;
  delivery_method_id: number | null;
  parcel_machine_id: number | null;
  delivery_shop_id: number | null;
  delivery_country_code: string | null;
  created_at: number;
  updated_at: number;
  /**
   * The version a basket reminder was queued for (0: none yet); a write moves `version` on, so the
   * basket can be reminded again after another quiet period (basket-reminders.ts).
   */
  reminded_version: ColumnType<number, number | undefined, number>;
}

/** When a person (their user, every store and account) was last sent a basket reminder: one in 7 days. */
export interface BasketReminderRecipientTable {
  user_id: number;
  reminded_at: number;
}

export interface BasketLineTable {
  basket_id: number;
  product_id: number;
  quantity: number;
  /** The unit price the shopper saw when the line last changed. */
  seen_price_cents: number;
  added_at: number;
}

export type DiscountConditionMode = 'INCLUDE' | 'EXCLUDE';
export type DiscountConditionKind = 'CATEGORY' | 'PRODUCT' | 'BINDING' | 'TYPE';

export interface DiscountCodeTable {
  id: Generated<number>;
  /** Upper-case; codes are compared case-insensitively. */
  code: string;
  /** Exactly one of percent and amount_cents is set. */
  percent: number | null;
  amount_cents: number | null;
  valid_from: number | null;
  /** Exclusive. */
  valid_to: number | null;
  max_uses: number | null;
  used_count: ColumnType<number, number | undefined, number>;
  min_basket_cents: number | null;
  /** Comma-separated customer kinds (GUEST, SIMPLE, BUSINESS) the code is for. */
  customer_kinds: string;
  /** Comma-separated store codes; empty for every store. */
  stores: ColumnType<string, string | undefined, string>;
  free_parcel_machine: BooleanColumn;
  is_active: BooleanColumn;
  created_at: number;
  updated_at: number;
}

export interface DiscountCodeConditionTable {
  discount_code_id: number;
  mode: DiscountConditionMode;
  kind: DiscountConditionKind;
  value: string;
}

export type DeliveryKind = 'PARCEL_MACHINE' | 'COURIER' | 'EXPRESS_COURIER' | 'SHOP_PICKUP' | 'DRIVE_IN' | 'INTERNATIONAL';

export interface DeliveryMethodTable {
  id: Generated<number>;
  code: string;
  kind: DeliveryKind;
  carrier: string | null;
  /** Comma-separated ISO country codes. */
  countries: string;
  suits_digital_only: BooleanColumn;
  suits_heavy: BooleanColumn;
  days_min: number;
  days_max: number;
  vat_rate_percent: number;
  is_active: BooleanColumn;
  position: number;
  created_at: number;
  updated_at: number;
}

export interface DeliveryMethodNameTable {
  delivery_method_id: number;
  language: string;
  name: string;
}

export interface DeliveryMethodPriceTable {
  delivery_method_id: number;
  store_code: string;
  price_cents: number;
  free_over_cents: number | null;
}

export interface DeliveryCountryFeeTable {
  delivery_method_id: number;
  country_code: string;
  price_cents: number;
}

export interface DeliveryMethodShopTable {
  delivery_method_id: number;
  shop_id: number;
}

export interface ParcelMachineTable {
  id: Generated<number>;
  carrier: string;
  code: string;
  name: string;
  city: string;
  address: string;
  country_code: string;
  is_active: BooleanColumn;
  created_at: number;
  updated_at: number;
}

export interface BasketTables {
  basket: BasketTable;
  basket_line: BasketLineTable;
  basket_reminder_recipient: BasketReminderRecipientTable;
  discount_code: DiscountCodeTable;
  discount_code_condition: DiscountCodeConditionTable;
  delivery_method: DeliveryMethodTable;
  delivery_method_name: DeliveryMethodNameTable;
  delivery_method_price: DeliveryMethodPriceTable;
  delivery_country_fee: DeliveryCountryFeeTable;
  delivery_method_shop: DeliveryMethodShopTable;
  parcel_machine: ParcelMachineTable;
}
