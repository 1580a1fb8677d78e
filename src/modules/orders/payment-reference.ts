// Order references at the gateways: one per payment attempt.
/**
 * The order reference of the order's n-th payment attempt. A gateway may refuse a second payment
 * under one reference (EveryPay does by default), and an attempt whose answer was lost may exist
 * there: each attempt gets its own.
 */
export function attemptReference(code: string, attempt: number): string {
  return attempt === 1 ? code : `${code}-${attempt}`;
}

/** The order code an attempt's order reference belongs to. */
export function codeOfReference(orderReference: string): string {
  return orderReference.replace(/-\d+$/, '');
}
