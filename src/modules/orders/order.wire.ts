import type { Static } from '@sinclair/typebox';
import { toWireMoney } from '../pricing/index.js';
import type { OrderLineRow, OrderRow } from './orders.repository.js';
import type { OrderSchema, OrderSummarySchema } from './order.schemas.js';
import type { OrderStatus, PaymentState } from './orders.tables.js';
import type { PickupRow } from './processing/pickup.repository.js';

// Orders on the wire: money as euros with two decimals, times as RFC 3339 UTC.

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

export interface OrderDetail {
  order: OrderRow;
  lines: OrderLineRow[];
  /** The newest status changes, oldest first (order-detail.service.ts, STATUS_CHANGES_SHOWN). */
  history: Array<{ to_status: OrderStatus; cause: string; created_at: number | string }>;
  /** Whether the order has changes older than `history`'s first. */
  olderStatusChangesOmitted: boolean;
  paymentState: PaymentState | null;
  /** A pickup order's hand-over in the shop, once the back office reported one. */
  pickup: PickupRow | null;
}

export function toOrderWire({
  order,
  lines,
  history,
  olderStatusChangesOmitted,
  paymentState,
  pickup,
}: OrderDetail): Static<typeof OrderSchema> {
  const contact = (prefix: 'shipping' | 'billing') => ({
    name: order[`${prefix}_name`],
    email: order[`${prefix}_email`],
    phone: order[`${prefix}_phone`],
    address: order[`${prefix}_address`],
    city: order[`${prefix}_city`],
    postcode: order[`${prefix}_postcode`],
    countryNavCode: order[`${prefix}_country`],
  });
  return {
    code: order.code!,
    store: order.store_code,
    status: order.status,
    createdAt: iso(order.created_at),
    lines: lines.map((line) => ({
      productId: line.product_id,
      productCode: line.product_code,
      type: line.product_type,
      title: line.title,
      quantity: line.quantity,
      unitPrice: toWireMoney(line.unit_price_cents),
      regularPrice: toWireMoney(line.regular_price_cents),
      discount: toWireMoney(line.discount_cents),
      total: toWireMoney(line.total_cents),
      vatRate: Number(line.vat_rate),
      digital: Boolean(line.is_digital),
    })),
    subtotal: toWireMoney(order.subtotal_cents),
    discount: toWireMoney(order.discount_cents),
    discountCode: order.discount_code,
    delivery: {
      methodId: order.delivery_method_id,
      code: order.delivery_method_code,
      kind: order.delivery_kind,
      name: order.delivery_name,
      price: toWireMoney(order.delivery_cents),
      parcelMachine: order.parcel_machine_name,
      shopCode: order.delivery_shop_code,
      countryCode: order.delivery_country,
      pickup: pickup && {
        readyAt: pickup.ready_at === null ? null : iso(pickup.ready_at),
        collectBy: pickup.collect_by,
        collectedAt: pickup.collected_at === null ? null : iso(pickup.collected_at),
      },
    },
    payment: { methodId: order.payment_method, state: paymentState },
    vat: toWireMoney(order.vat_cents),
    vatIncluded: Boolean(order.vat_included),
    giftCardAmount: toWireMoney(Number(order.gift_card_cents)),
    total: toWireMoney(order.total_cents),
    shipping: contact('shipping'),
    billing: contact('billing'),
    notes: order.notes,
    // The causes are the operators' (the back office's errors, settings): the customer sees the states and their times.
    statusHistory: history.map((change) => ({ status: change.to_status, at: iso(change.created_at) })),
    olderStatusChangesOmitted,
  };
}

export function toOrderSummary(order: OrderRow & { item_count: number | string }): Static<typeof OrderSummarySchema> {
  return {
    code: order.code!,
    status: order.status,
    createdAt: iso(order.created_at),
    itemCount: Number(order.item_count),
    // Beside the total, which is what was left to pay: an order the cards paid shows 0.00 there.
    giftCardAmount: toWireMoney(Number(order.gift_card_cents)),
    total: toWireMoney(order.total_cents),
    paymentMethodId: order.payment_method,
    deliveryName: order.delivery_name,
  };
}
