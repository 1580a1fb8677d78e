import { toRfc3339 } from '../../../db/time.js';
import type { LineRow, OrderRow, PaymentRow } from './processing.repository.js';
import { toWireMoney } from '../../pricing/index.js';

// The whole order as the back office receives it: pushed by the hand-off (signed JSON POST) and
// pulled by operators from GET /admin/orders. One shape for both, so the back office reads one.
// Money is in euros with two decimals, times are RFC 3339 UTC, as everywhere on the wire.

const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));

function contact(order: OrderRow, side: 'shipping' | 'billing') {
  return {
    name: order[`${side}_name`],
    email: order[`${side}_email`],
    phone: order[`${side}_phone`],
    address: order[`${side}_address`],
    city: order[`${side}_city`],
    postcode: order[`${side}_postcode`],
    country: order[`${side}_country`],
  };
}

export function orderDocument(order: OrderRow, lines: readonly LineRow[], payment: PaymentRow | undefined) {
  return {
    code: order.code ?? '',
    store: order.store_code,
    language: order.language,
    status: order.status,
    statusChangedAt: time(order.status_changed_at),
    createdAt: time(order.created_at),
    updatedAt: time(order.updated_at),
    customer: {
      kind: order.customer_kind,
      clientCode: order.client_code,
    },
    billing: contact(order, 'billing'),
    shipping: contact(order, 'shipping'),
    notes: order.notes,
    newsletter: Boolean(order.newsletter),
    lines: lines.map((line) => ({
      position: line.position,
      productCode: line.product_code,
      productType: line.product_type,
      title: line.title,
      quantity: line.quantity,
      unitPrice: toWireMoney(line.unit_price_cents),
      regularPrice: toWireMoney(line.regular_price_cents),
      discount: toWireMoney(line.discount_cents),
      total: toWireMoney(line.total_cents),
      vatRate: Number(line.vat_rate),
      digital: Boolean(line.is_digital),
    })),
    delivery: {
      methodCode: order.delivery_method_code,
      kind: order.delivery_kind,
      name: order.delivery_name,
      parcelMachineId: order.parcel_machine_id === null ? null : Number(order.parcel_machine_id),
      parcelMachineName: order.parcel_machine_name,
      shopCode: order.delivery_shop_code,
      country: order.delivery_country,
      price: toWireMoney(order.delivery_cents),
      vatRate: Number(order.delivery_vat_rate),
    },
    amounts: {
      currency: 'EUR' as const,
      subtotal: toWireMoney(order.subtotal_cents),
      discount: toWireMoney(order.discount_cents),
      discountCode: order.discount_code,
      delivery: toWireMoney(order.delivery_cents),
      vat: toWireMoney(order.vat_cents),
      vatIncluded: Boolean(order.vat_included),
      // What gift cards paid: the total is what was left to pay after them (the payment's sum).
      giftCardAmount: toWireMoney(Number(order.gift_card_cents)),
      total: toWireMoney(order.total_cents),
    },
    payment: {
      method: order.payment_method,
      gateway: payment?.gateway ?? null,
      reference: payment?.reference ?? null,
      state: payment?.state ?? null,
      amount: payment ? toWireMoney(payment.amount_cents) : null,
      refunded: payment ? toWireMoney(payment.refunded_cents) : null,
    },
    backOffice: {
      handedOffAt: time(order.handed_off_at),
      status: order.nav_status,
      createdAt: time(order.nav_created_at),
    },
  };
}

export type OrderDocument = ReturnType<typeof orderDocument>;

/** The payment that speaks for the order: the settled (or refunded) one, else the newest. */
export function mainPayment(payments: readonly PaymentRow[]): PaymentRow | undefined {
  return payments.find((payment) => payment.state === 'settled' || payment.state === 'refunded') ?? payments[0];
}
