import type { OrderChecksum } from './checksum.js';

// The front-end's pages of one order (checkout finished, payment failed, the order's own page) take the
// same query: the order id and its checksum, which let whoever holds the link read the order (a guest has
// nothing else), and the order's language, so that the page speaks the language the order was placed in
// rather than guessing it. The gateway's return to this API (`returnUrl`) takes the same query.

export interface LinkedOrder {
  id: number;
  language: string;
}

/** `<frontendUrl><path>?orderId=&checksum=&language=` of the order. */
export function frontendOrderPage(frontendUrl: string, path: string, checksum: OrderChecksum, order: LinkedOrder): string {
  return `${frontendUrl}${path}?${orderLinkQuery(checksum, order)}`;
}

export function orderLinkQuery(checksum: OrderChecksum, order: LinkedOrder): string {
  return `${orderIdQuery(checksum, order.id)}&language=${encodeURIComponent(order.language)}`;
}

/** `orderId=&checksum=`: what lets the link's holder read the order (the payment form's link has no language to carry). */
export function orderIdQuery(checksum: OrderChecksum, orderId: number): string {
  return `orderId=${orderId}&checksum=${checksum.of(orderId)}`;
}
