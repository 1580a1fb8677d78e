import type { CustomerKind } from './orders.tables.js';
import type { GatewayName } from '../payments/index.js';
import type { MessageKey } from '../../i18n/index.js';
import { basketCheckout } from '../basket/index.js';

// How an order may be paid. Online methods go through a gateway (only those configured are
// offered); the others need nothing paid online, so their orders skip the payment page: invoice
// for business and wholesale customers, paying in the shop where the parcel is picked up, cash to
// the courier. Those two are paid when a parcel is handed over, after the order was processed, so
// they are not for a basket that must be paid first (prepaymentReason below).

export interface PaymentMethod {
  id: string;
  nameKey: MessageKey;
  gateway: GatewayName | null;
  kinds: readonly CustomerKind[];
  /** Delivery kinds it goes with; null for any. */
  deliveryKinds: readonly string[] | null;
  /** Paid at the hand-over of a parcel: not for a basket that must be paid first. */
  paidAtHandOver: boolean;
}

/** What prepaymentReason reads of a priced basket. */
interface PrepaymentBasket {
  digitalOnly: boolean;
  lines: ReadonlyArray<Pick<basketCheckout.PricedLine, 'available' | 'product' | 'virtualCard'>>;
}

/**
 * Why the basket must be paid before its order is processed, as the refusal of a method paid at the
 * hand-over; null when it need not be. Processing grants every digital line (isDigitalProduct: the
 * one notion that makes an order line digital and so granted or issued then, not shipped) at once,
 * and nothing here ever learns that a courier or a shop took the money. So a basket with any digital
 * line is paid first: a buyer who refused the parcel, or never collected it, kept the download or
 * the card unpaid. A basket of digital items only hands no parcel over at all; a virtual gift card
 * is money, and says so.
 */
export function prepaymentReason(basket: PrepaymentBasket): MessageKey | null {
  if (basket.digitalOnly) return 'checkout.paymentNotWithDelivery';
  const sentFirst = basket.lines.filter((line) => line.available && basketCheckout.isDigitalProduct(line.product));
  if (sentFirst.some((line) => line.virtualCard !== null)) return 'checkout.paymentNotForGiftCards';
  if (sentFirst.length > 0) return 'checkout.paymentNotForDownloads';
  return null;
}

const EVERYONE: readonly CustomerKind[] = ['GUEST', 'SIMPLE', 'BUSINESS', 'WHOLESALE'];

export const PAYMENT_METHODS: readonly PaymentMethod[] = [
  {
    id: 'EVERYPAY',
    nameKey: 'checkout.payment.everypay',
    gateway: 'everypay',
    kinds: EVERYONE,
    deliveryKinds: null,
    paidAtHandOver: false,
  },
  { id: 'TEST_GATEWAY', nameKey: 'checkout.payment.test', gateway: 'test', kinds: EVERYONE, deliveryKinds: null, paidAtHandOver: false },
  {
    id: 'INVOICE',
    nameKey: 'checkout.payment.invoice',
    gateway: null,
    kinds: ['BUSINESS', 'WHOLESALE'],
    deliveryKinds: null,
    paidAtHandOver: false,
  },
  {
    id: 'PAY_IN_SHOP',
    nameKey: 'checkout.payment.inShop',
    gateway: null,
    kinds: EVERYONE,
    deliveryKinds: ['SHOP_PICKUP', 'DRIVE_IN'],
    paidAtHandOver: true,
  },
  {
    id: 'CASH_ON_DELIVERY',
    nameKey: 'checkout.payment.cashOnDelivery',
    gateway: null,
    kinds: ['GUEST', 'SIMPLE'],
    deliveryKinds: ['COURIER', 'EXPRESS_COURIER'],
    paidAtHandOver: true,
  },
];

/**
 * The methods a customer of this kind can use, given which gateways are configured; for a basket
 * that must be paid first (prepaymentReason), not those paid at a parcel's hand-over.
 */
export function paymentMethodsFor(kind: CustomerKind, gateways: ReadonlySet<GatewayName>, mustPayFirst = false): PaymentMethod[] {
  return PAYMENT_METHODS.filter(
    (method) =>
      method.kinds.includes(kind) && (method.gateway === null || gateways.has(method.gateway)) && !(mustPayFirst && method.paidAtHandOver),
  );
}

/** Why the method can't pay this order, as a message key; null when it can. */
export function paymentMethodRefusal(
  method: PaymentMethod | undefined,
  kind: CustomerKind,
  deliveryKind: string,
  gateways: ReadonlySet<GatewayName>,
  prepayment: MessageKey | null = null,
): MessageKey | null {
  if (!method || !paymentMethodsFor(kind, gateways).includes(method)) return 'checkout.unknownPaymentMethod';
  if (method.deliveryKinds !== null && !method.deliveryKinds.includes(deliveryKind)) return 'checkout.paymentNotWithDelivery';
  if (prepayment !== null && method.paidAtHandOver) return prepayment;
  return null;
}
