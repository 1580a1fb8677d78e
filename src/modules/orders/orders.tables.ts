// The orders module's tables (migration 2026_11_24_0120). Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

export type OrderStatus =
  | 'NEW'
  | 'PENDING_PAYMENT'
  | 'PENDING_PROCESSING'
  | 'PROCESSING'
  | 'PENDING_NAV_PROCESSING'
  | 'COMPLETED'
  | 'PAYMENT_FAILED'
  | 'FAILED'
  | 'CANCELLED';

export type CustomerKind = 'GUEST' | 'SIMPLE' | 'BUSINESS' | 'WHOLESALE';

export interface CustomerOrderTable {
  id: Generated<number>;
  code: string | null;
  store_code: string;
  client_account_id: number | null;
  customer_kind: CustomerKind;
  language: string;
  status: OrderStatus;
  status_changed_at: number;
  basket_id: number | null;
  basket_version_after: number | null;
  idempotency_scope: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  shipping_name: string;
  shipping_email: string;
  shipping_phone: string;
  shipping_address: string;
  shipping_city: string;
  shipping_postcode: string;
  shipping_country: string;
  billing_name: string;
  billing_email: string;
  billing_phone: string;
  billing_address: string;
  billing_city: string;
  billing_postcode: string;
  billing_country: string;
  notes: string;
  newsletter: BooleanColumn;
  delivery_method_id: number;
  delivery_method_code: string;
  delivery_kind: string;
  delivery_name: string;
  parcel_machine_id: number | null;
  parcel_machine_name: string | null;
  delivery_shop_code: string | null;
  delivery_country: string | null;
  delivery_cents: number;
  delivery_vat_rate: number;
  payment_method: string;
  discount_code_id: number | null;
  discount_code: string | null;
  discount_cents: number;
  subtotal_cents: number;
  /** What gift cards paid (migration 1300); total_cents is what is left to pay online. */
  gift_card_cents: ColumnType<number, number | undefined, number>;
  total_cents: number;
  vat_cents: number;
  vat_included: BooleanColumn;
  session_id: string | null;
  handed_off_at: number | null;
  nav_created_at: number | null;
  nav_status: string | null;
  created_at: number;
  updated_at: number;
}

export interface OrderLineTable {
  order_id: number;
  position: number;
  product_id: number;
  product_code: string;
  product_type: string;
  title: string;
  quantity: number;
  unit_price_cents: number;
  regular_price_cents: number;
  discount_cents: number;
  total_cents: number;
  vat_rate: number;
  is_digital: BooleanColumn;
  stock_bound: BooleanColumn;
  reserved_quantity: number;
}

export interface OrderStatusChangeTable {
  id: Generated<number>;
  order_id: number;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  cause: string;
  created_at: number;
}

export type PaymentState = 'creating' | 'pending' | 'settled' | 'failed' | 'abandoned' | 'voided' | 'refunded';

export interface OrderPaymentTable {
  id: Generated<number>;
  order_id: number;
  gateway: string;
  reference: string | null;
  /** The order reference the gateway knows this attempt by: the code, then `<code>-<n>`. */
  order_reference: string | null;
  idempotency_key: string;
  amount_cents: number;
  refunded_cents: ColumnType<number, number | undefined, number>;
  state: PaymentState;
  redirect: string | null;
  /** Settled for an order that could not go on (its gift cards fell short): the sweep refunds it. */
  refund_due_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** Its refund (refund_due_at) refused by the gateway as asked: not sent again; the operators refund it by hand. */
  refund_refused_at: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
  updated_at: number;
}

/** An operator's refund of a payment, recorded before the gateway is asked (migration 2026_11_30_1550). */
export type RefundState = 'sending' | 'unknown' | 'refunded' | 'refused';

export interface OrderRefundTable {
  id: Generated<number>;
  payment_id: number;
  /** What the operator asked for; null: all that can be given back. */
  requested_cents: number | null;
  amount_cents: number;
  refunded_before_cents: number;
  /** Taken off the gift cards the order bought before the gateway was asked. */
  card_cents: number;
  idempotency_key: string;
  /** The operator's Idempotency-Key header, when sent. */
  request_key: string | null;
  state: RefundState;
  created_at: number;
  updated_at: number;
}

export interface PaymentCallbackTable {
  gateway: string;
  reference: string;
  /** The state confirmed; a refund's is `refunded:<cents refunded in all>` (varchar(32), migration 2026_12_05_1340). */
  state: string;
  order_id: number | null;
  outcome: string;
  received_count: number;
  created_at: number;
  updated_at: number;
}

export interface OrderEntitlementTable {
  order_id: number;
  product_id: number;
  client_account_id: number | null;
  created_at: number;
}

/** The receiver of an order's downloads bought for them (migration 2026_12_09_1050; gift-downloads.ts). */
export interface OrderGiftDownloadTable {
  order_id: number;
  /** Normalised; the erasure's placeholder once the receiver's data was erased. */
  receiver_email: string;
  created_at: number;
  /** The end of the receiver's key (Unix ms), written by the order mail that hands it out; null before. */
  expires_at: number | null;
}

/**
 * What a client account's paid orders in a store bought, per product (migration 2026_11_28_0610):
 * kept by the order state machine in the transaction of every status change that makes an order
 * count or stop counting as paid (order-history.repository.ts).
 */
export interface BoughtProductTable {
  client_account_id: number;
  store_code: string;
  product_id: number;
  /** The quantity over the paid orders' lines of the product. */
  quantity: number;
  /** How many paid order lines have the product: the row goes when none does. */
  line_count: number;
  /** The newest paid order that has the product. */
  last_order_id: number;
  /** The position of the product's first line in that order: the line whose code, title and type the list shows. */
  last_position: number;
}

/** A pickup order's hand-over in the shop, as the back office reports it (migration 2026_12_03_0300). */
export interface OrderPickupTable {
  order_id: number;
  ready_at: number | null;
  /** The last day the shop keeps it, YYYY-MM-DD in Tallinn. */
  collect_by: string | null;
  collected_at: number | null;
  /** How many reports changed it: a reminder names the one that queued it. */
  reports: number;
  updated_at: number;
}

/** An order whose buyer was asked to rate what they bought (migration 2026_12_03_0400). */
export interface OrderFeedbackRequestTable {
  order_id: number;
  client_account_id: number;
  requested_at: number;
}

/** Why a FAILED order the back office reported having was not revived (orders.messages.ts keys, without the prefix). */
export type RevivalRefusalReason = 'reviveCardsShort' | 'reviveBoughtCardsVoided';

/** A FAILED order whose revival the back office's report was refused (migration 2026_12_05_1345). */
export interface OrderRevivalRefusalTable {
  order_id: number;
  reason: RevivalRefusalReason;
  /** The back office's status of the last refused report. */
  reported_status: string;
  /** How many reports were refused. */
  reports: number;
  first_at: number;
  last_at: number;
}

export interface OrdersTables {
  customer_order: CustomerOrderTable;
  order_line: OrderLineTable;
  order_status_change: OrderStatusChangeTable;
  order_payment: OrderPaymentTable;
  payment_callback: PaymentCallbackTable;
  order_refund: OrderRefundTable;
  order_entitlement: OrderEntitlementTable;
  order_gift_download: OrderGiftDownloadTable;
  bought_product: BoughtProductTable;
  order_pickup: OrderPickupTable;
  order_feedback_request: OrderFeedbackRequestTable;
  order_revival_refusal: OrderRevivalRefusalTable;
}
