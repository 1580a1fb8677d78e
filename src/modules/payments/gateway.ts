// One interface for every payment service provider (PSP) the shop takes money through. An adapter
// only speaks its provider's API: it knows nothing of orders, their states or the database of the
// shop. The orders module decides what a payment's state means for an order, so the state machine
// keeps one owner and this module never imports it.

export type GatewayName = 'everypay' | 'test';

/**
 * What the provider says of a payment, in the shop's words. `pending`: started, not finished (the
 * shopper is still on the page, or 3-D Secure is running). `settled`: the money is ours.
 * `failed`/`abandoned`/`voided`: no money moved and none will. `refunded`: it moved and went back
 * (in part when `refundedCents` < `amountCents`).
 */
export type GatewayPaymentState = 'pending' | 'settled' | 'failed' | 'abandoned' | 'voided' | 'refunded';

export interface CreatePaymentInput {
  /** The order's code (`WT000123`): the provider shows it and sends it back. */
  orderReference: string;
  amountCents: number;
  currency: 'EUR';
  customerEmail: string;
  /** The shopper's address as the shop saw it, when known. */
  customerIp: string | null;
  locale: 'et' | 'en' | 'ru';
  /** Where the provider sends the shopper's browser back (the shop's `/bank/return-internal?...`). */
  returnUrl: string;
  /** Where the provider posts its notifications (the shop's `/payment/<gateway>/callback`). */
  callbackUrl: string;
  /** Unique per payment attempt; the same key sent twice never makes two payments at the provider. */
  idempotencyKey: string;
  /**
   * Also save the card for later merchant-initiated charges (chargeSavedCard): the provider answers
   * a token with the settled payment's status. EveryPay: `request_token` with the `unscheduled`
   * token agreement. With it the amount may be 0 (a card check that moves no money).
   */
  requestToken?: boolean;
}

/** A saved card as the provider describes it: its token and what a person knows it by, never its number. */
export interface SavedCard {
  token: string;
  /** The card scheme as the provider names it (visa, master_card ...). */
  brand: string;
  lastFour: string;
  expiryMonth: number;
  expiryYear: number;
}

/** A merchant-initiated charge of a saved card: no shopper on a page, no redirect. */
export interface SavedCardChargeInput {
  token: string;
  /** The shop's reference of this charge; unique per charge, the provider shows and sends it back. */
  orderReference: string;
  amountCents: number;
  currency: 'EUR';
  customerEmail: string;
  /** The same key sent twice never charges twice at the provider. */
  idempotencyKey: string;
}

/** The form the front-end auto-submits to take the shopper to the provider's page. */
export interface RedirectForm {
  url: string;
  method: 'GET' | 'POST';
  fields: Record<string, string>;
}

export interface CreatedPayment {
  /** The provider's own id of the payment; every later call and callback names it. */
  reference: string;
  redirect: RedirectForm;
}

export interface PaymentStatus {
  reference: string;
  /** The order code the payment was created for, as the provider stored it. */
  orderReference: string;
  state: GatewayPaymentState;
  amountCents: number;
  refundedCents: number;
  /** The currency of the amounts (ISO 4217, upper case) as the provider names it; null when its answer names none. */
  currency: string | null;
  /**
   * Whether the provider holds the payment on the shop's own processing account; false when it names
   * another (EveryPay: an `account_name` other than EVERYPAY_ACCOUNT_NAME, say another shop's or
   * another currency's account of the same merchant). Another account's money is not this shop's,
   * whatever its amount.
   */
  ownAccount: boolean;
  /**
   * Whether the money went back because the cardholder disputed the payment with their bank (a chargeback,
   * EveryPay's `chargebacked`: often a stolen card), not because the shop refunded it (in its portal or
   * through the API); its state is `refunded` either way. Card-network rules say a disputed card is not to be
   * billed again. False for every other payment, and from a gateway that has no chargebacks (the test gateway).
   */
  chargedBack: boolean;
  /** The card saved by a payment that requested a token, once it is settled; absent otherwise. */
  card?: SavedCard | null;
}

/**
 * Whether `status` is the payment of `orderReference` for `amountCents` of the shop's own money: that
 * sum, in euros (a provider that names no currency is taken as the shop's), on the shop's own
 * processing account. Another currency's or another account's payment proves nothing of an order or
 * a charge, whatever its amount says. Orders and subscription charges hold their payments to this.
 */
export function paysInEuros(status: PaymentStatus, orderReference: string | null, amountCents: number): boolean {
  return (
    status.orderReference === orderReference &&
    status.amountCents === amountCents &&
    status.ownAccount &&
    (status.currency === null || status.currency === 'EUR')
  );
}

/** What a provider's HTTP request (callback or browser return) carried, before anything trusts it. */
export interface GatewayRequest {
  query: Record<string, unknown>;
  body: unknown;
}

export interface PaymentGateway {
  readonly name: GatewayName;
  createPayment(input: CreatePaymentInput): Promise<CreatedPayment>;
  /** The provider's word on a payment; null when the provider does not know the reference. */
  fetchStatus(reference: string): Promise<PaymentStatus | null>;
  /**
   * The payment reference a callback or return names, or null when it names none. Nothing in the
   * request is trusted beyond this: the caller fetches the status from the provider itself.
   */
  referenceOf(request: GatewayRequest): string | null;
  /** Refunds part or all of a settled payment; answers the payment's status after it. */
  refund(reference: string, amountCents: number, idempotencyKey: string): Promise<PaymentStatus>;
  /** Charges a saved card's token (EveryPay: POST /payments/mit); answers the payment as it stands. */
  chargeSavedCard(input: SavedCardChargeInput): Promise<PaymentStatus>;
  /**
   * The payment made under an order reference, for a charge whose answer was lost; null when the
   * provider has none or cannot look one up (EveryPay: its callback names the payment instead).
   */
  findPayment(orderReference: string): Promise<PaymentStatus | null>;
}

/** The provider could not be reached, answered with an error of its own (network, 5xx, bad JSON) or asked the shop to try later (429). */
export class GatewayUnavailableError extends Error {
  constructor(
    readonly gateway: GatewayName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${gateway}: ${message}`, options);
    this.name = 'GatewayUnavailableError';
  }
}

/**
 * The gateway answered about one payment, and the answer cannot be read (EveryPay: a payment_state the
 * shop does not know, an amount it cannot parse). The payment cannot be told about for now, as when the
 * gateway is unavailable, and is asked about again later; but the gateway answered, and answers the other
 * payments as ever, so it is no outage (isGatewayOutage): taken for one, that one payment's callback paused
 * every other payment's look-up, its own retries again and again.
 */
export class GatewayAnswerUnreadableError extends GatewayUnavailableError {
  constructor(gateway: GatewayName, message: string) {
    super(gateway, message);
    this.name = 'GatewayAnswerUnreadableError';
  }
}

/**
 * What a refusal is of: `what-was-asked` (an amount over what is left, a payment in a state that cannot
 * be refunded, a nonce used already, a malformed request), which the same request meets again, so the
 * caller may take it as the answer about that payment; or `the-caller` (the shop's credentials or rights:
 * a wrong API key, an account not allowed the call), which the operator puts right, after which the same
 * request goes through: it says nothing of the payment, and is left to be tried again, as when unavailable.
 */
export type GatewayRefusal = 'what-was-asked' | 'the-caller';

/** The provider refused the request itself (4xx other than an unknown reference or throttling): a bug or a bad config. */
export class GatewayRefusedError extends Error {
  constructor(
    readonly gateway: GatewayName,
    readonly status: number,
    message: string,
    readonly refusal: GatewayRefusal = 'what-was-asked',
  ) {
    super(`${gateway} refused (${status}): ${message}`);
    this.name = 'GatewayRefusedError';
  }
}

/** The gateway refused what was asked (not the shop's credentials): the same request meets it again, so it is an answer about the payment. */
export function refusesWhatWasAsked(error: unknown): error is GatewayRefusedError {
  return error instanceof GatewayRefusedError && error.refusal === 'what-was-asked';
}

/** A refund's answer: the payment after it, or, where the gateway refused what was asked, the payment as looked up then. */
export interface GatewayRefundAnswer {
  status: PaymentStatus | null;
  refusal: GatewayRefusedError | null;
}

/**
 * Refunds `cents` of a payment. A refusal of what was asked may be of the key used already (a refund
 * whose answer was lost) or of a payment refunded by other means, so the payment as it is then is the
 * answer, with the refusal for the caller to judge against what it needed. The gateway unavailable, or
 * refusing the shop itself, is thrown: that says nothing of the payment.
 */
export async function refundOrLookUp(gateway: PaymentGateway, reference: string, cents: number, key: string): Promise<GatewayRefundAnswer> {
  try {
    return { status: await gateway.refund(reference, cents, key), refusal: null };
  } catch (error) {
    if (!refusesWhatWasAsked(error)) throw error;
    return { status: await gateway.fetchStatus(reference), refusal: error };
  }
}

/**
 * Whether the gateway cannot answer the shop about any payment for now: down, failing or throttling the
 * shop (unavailable), or refusing the shop itself (its credentials, its rights, an API address that is
 * not the gateway's). Every other look-up meets it too until it passes or an operator puts it right,
 * so the callbacks' and returns' look-ups pause on it (orders' bank routes). An answer about one payment
 * that cannot be read (GatewayAnswerUnreadableError) is none: the other payments are answered.
 */
export function isGatewayOutage(error: unknown): boolean {
  if (error instanceof GatewayAnswerUnreadableError) return false;
  return error instanceof GatewayUnavailableError || (error instanceof GatewayRefusedError && error.refusal === 'the-caller');
}
