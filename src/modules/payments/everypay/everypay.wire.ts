import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { GatewayPaymentState } from '../gateway.js';

// EveryPay API v4 on the wire: what the shop sends and the parts of the answers it reads. Every
// answer is checked against these before a field is used; anything else counts as the provider
// being unavailable, never as a payment state.

/** Decimal euros as EveryPay writes them: a JSON number (12.3) or a string ("12.30"). */
const Amount = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\d{1,9}(\\.\\d{1,2})?$' })]);
const Reference = Type.String({ minLength: 1, maxLength: 256 });

/**
 * A card payment's card: the token (when the payment requested one) and what identifies the card to
 * a person. The shop keeps only these; the number never leaves EveryPay.
 */
export const WireCardDetails = Type.Object({
  token: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()])),
  type: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  last_four_digits: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{4}$' }), Type.Null()])),
  month: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{1,2}$' }), Type.Integer(), Type.Null()])),
  year: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{4}$' }), Type.Integer(), Type.Null()])),
});

/** GET /payments/{ref} (and POST /payments/mit): the fields of the payment object the shop relies on (it has many more). */
export const WirePayment = Type.Object({
  payment_reference: Reference,
  order_reference: Type.String({ minLength: 1, maxLength: 256 }),
  payment_state: Type.String({ minLength: 1, maxLength: 64 }),
  initial_amount: Amount,
  standing_amount: Type.Optional(Type.Union([Amount, Type.Null()])),
  // The payment's currency and processing account (e.g. EUR, EUR3D1). Answers of some API versions
  // and payment methods leave them out; a payment that names them is held to them.
  currency: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{3}$' }), Type.Null()])),
  account_name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  cc_details: Type.Optional(Type.Union([WireCardDetails, Type.Null()])),
});
export type WirePayment = Static<typeof WirePayment>;

/** POST /payments/oneoff answers the new payment with the link the shopper is sent to. */
export const WireCreated = Type.Object({
  payment_reference: Reference,
  payment_link: Type.String({ minLength: 1, maxLength: 2048 }),
  payment_state: Type.String({ minLength: 1, maxLength: 64 }),
});

/** POST /payments/refund answers the payment after the refund (its order reference may be left out). */
export const WireRefunded = Type.Object({ payment_reference: Reference, payment_state: Type.String({ minLength: 1 }) });

/** An error answer: `{"error": {"code": 4024, "message": "..."}}`. */
export const WireError = Type.Object({
  error: Type.Object({ code: Type.Optional(Type.Union([Type.Number(), Type.String()])), message: Type.Optional(Type.String()) }),
});

export const checkPayment = TypeCompiler.Compile(WirePayment);
export const checkCreated = TypeCompiler.Compile(WireCreated);
export const checkRefunded = TypeCompiler.Compile(WireRefunded);
export const checkError = TypeCompiler.Compile(WireError);

/**
 * EveryPay's payment states in the shop's words; a state not listed here is an answer the shop does
 * not understand. `authorised` (a card pre-authorisation or PayPal's review) has not moved money yet,
 * so it stays pending. A chargeback took the money back like a refund does.
 */
const STATES: Record<string, GatewayPaymentState> = {
  initial: 'pending',
  waiting_for_sca: 'pending',
  waiting_for_3ds_response: 'pending',
  sent_for_processing: 'pending',
  authorised: 'pending',
  authorized: 'pending',
  settled: 'settled',
  failed: 'failed',
  abandoned: 'abandoned',
  voided: 'voided',
  refunded: 'refunded',
  partially_refunded: 'refunded',
  chargebacked: 'refunded',
};

export function stateOf(paymentState: string): GatewayPaymentState | undefined {
  return Object.hasOwn(STATES, paymentState) ? STATES[paymentState] : undefined;
}

/** "12.30", "12.3" or 12.3 as 1230 cents, without floating-point drift; undefined when it is not an amount. */
export function centsOf(amount: number | string): number | undefined {
  const text = typeof amount === 'number' ? amount.toFixed(2) : amount;
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  if (typeof amount === 'number' && Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** 1230 cents as the JSON number token 12.30 (EveryPay reads amounts as decimal euros). */
export function eurosOf(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
