import { createHash } from 'node:crypto';
import {
  GatewayAnswerUnreadableError,
  GatewayRefusedError,
  GatewayUnavailableError,
  type CreatedPayment,
  type CreatePaymentInput,
  type GatewayRequest,
  type PaymentGateway,
  type PaymentStatus,
  type SavedCard,
  type SavedCardChargeInput,
} from '../gateway.js';
import type { EveryPayConfig } from './everypay.config.js';
import { centsOf, checkCreated, checkError, checkPayment, checkRefunded, eurosOf, stateOf, type WirePayment } from './everypay.wire.js';

// The EveryPay adapter (API v4, https://support.every-pay.com/downloads/everypay_apiv4_integration_documentation).
// Every call is HTTP Basic with the API username and secret and names the API username again in its
// body or query. The callback URL is set in the merchant portal, not per payment, so `callbackUrl` of
// a payment is not sent. A callback or return only names a payment: the status always comes from
// GET /payments/{payment_reference}.

export interface EveryPayDeps {
  fetch?: typeof fetch;
  /** The request timestamps EveryPay asks for; the wall clock unless a test fixes it. */
  now?: () => Date;
}

/** EveryPay's payment references are hex strings; anything else cannot name a payment there. */
const REFERENCE = /^[A-Za-z0-9_-]{1,128}$/;

interface Answer {
  status: number;
  json: unknown;
}

export function createEveryPayGateway(config: EveryPayConfig, deps: EveryPayDeps = {}): PaymentGateway {
  const fetchFn = deps.fetch ?? fetch;
  const now = deps.now ?? (() => new Date());
  const authorization = `Basic ${Buffer.from(`${config.apiUsername}:${config.apiSecret}`).toString('base64')}`;
  const api = `${config.apiUrl}/api/v4`;

  async function call(what: string, method: 'GET' | 'POST', url: string, body?: string): Promise<Answer> {
    let status: number;
    let text: string;
    try {
      const response = await fetchFn(url, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
        signal: AbortSignal.timeout(config.timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      // The cause names the host at most: the secret only ever travels in the Authorization header.
      throw new GatewayUnavailableError('everypay', `${what}: ${timedOut ? `no answer within ${config.timeoutMs} ms` : 'unreachable'}`, {
        cause: err,
      });
    }
    // A 429 is EveryPay throttling the shop's calls: "try later", as a 5xx is, never a refusal of what was
    // asked. Taken for one, a billing run's burst of renewals failed their subscriptions and mailed their
    // customers that billing failed, and an operator's refund was recorded refused.
    if (status >= 500 || status === 429) throw new GatewayUnavailableError('everypay', `${what}: HTTP ${status}${errorText(parse(text))}`);
    const json = parse(text);
    if (json === undefined) throw new GatewayUnavailableError('everypay', `${what}: HTTP ${status} with an answer that is not JSON`);
    return { status, json };
  }

  function refused(what: string, answer: Answer): GatewayRefusedError {
    // A 4xx without EveryPay's error object is not EveryPay refusing anything: the shop asked another
    // service, or a path EveryPay does not serve (EVERYPAY_API_URL with a path, another host). Taken for
    // EveryPay's word, a 404 made every callback an unknown payment (a 404 to EveryPay, and counted as a
    // forged one), an operator's refund was recorded refused, a renewal failed its card; a 400 or 405
    // the same. Such an answer is the shop's setup to put right, as a refusal of its credentials is.
    if (!isEveryPayError(answer.json))
      return new GatewayRefusedError(
        'everypay',
        answer.status,
        `${what}: ${config.apiUrl} answered ${answer.status} without EveryPay's error object, so it is not EveryPay's API v4: check EVERYPAY_API_URL`,
        'the-caller',
      );
    // 401 is EveryPay refusing the API username or secret (4010, 4011), 403 the account's rights: the
    // shop's configuration, which the operator puts right, not this payment. Taken for a refusal of the
    // request, an operator's refund sent with a wrong secret was recorded refused for good. Every other
    // 4xx (400, 404, 422: the amount, the payment's state, the nonce) is about what was asked.
    const refusal = answer.status === 401 || answer.status === 403 ? 'the-caller' : 'what-was-asked';
    return new GatewayRefusedError('everypay', answer.status, `${what}${errorText(answer.json)}`, refusal);
  }

  function unexpected(what: string, detail: string): GatewayUnavailableError {
    return new GatewayUnavailableError('everypay', `${what}: unexpected answer (${detail})`);
  }

  /** EveryPay's answer about one payment that the shop cannot read: that payment waits, the others do not (no outage). */
  function unreadable(what: string, detail: string): GatewayAnswerUnreadableError {
    return new GatewayAnswerUnreadableError('everypay', `${what}: unexpected answer (${detail})`);
  }

  /** The JSON body with the amount written as decimal euros with two decimals (12.30, not 12.3). */
  function jsonWithAmount(fields: Record<string, unknown>, amountCents: number, zeroAllowed = false): string {
    if (!Number.isSafeInteger(amountCents) || amountCents < (zeroAllowed ? 0 : 1))
      throw new RangeError(`amountCents must be a positive whole number, got ${amountCents}`);
    return `{"amount":${eurosOf(amountCents)},${JSON.stringify(fields).slice(1)}`;
  }

  async function fetchStatus(reference: string): Promise<PaymentStatus | null> {
    if (!REFERENCE.test(reference)) return null;
    const what = 'payment status';
    const query = new URLSearchParams({ api_username: config.apiUsername });
    const answer = await call(what, 'GET', `${api}/payments/${encodeURIComponent(reference)}?${query}`);
    // EveryPay's own 404 names its error ("payment not found"); any other 404 is the shop's setup (refused).
    if (answer.status === 404 && isEveryPayError(answer.json)) return null;
    if (answer.status >= 400) throw refused(what, answer);
    // An answer naming the payment asked about is EveryPay's word on it, however odd its fields: that one
    // payment cannot be read. Anything else (another payment, no payment at all) is no answer of EveryPay's.
    if (!checkPayment.Check(answer.json))
      throw namesPayment(answer.json, reference) ? unreadable(what, 'a payment it cannot read') : unexpected(what, 'not a payment');
    if (answer.json.payment_reference !== reference) throw unexpected(what, 'another payment');
    return statusOf(answer.json, what);
  }

  /**
   * A payment object of the API in the shop's words; one it cannot read (a state it does not know, an amount
   * it cannot parse) is that payment unreadable for now, as the provider unavailable would be, but no outage.
   */
  function statusOf(payment: WirePayment, what: string): PaymentStatus {
    const reference = payment.payment_reference;
    if (!REFERENCE.test(reference)) throw unreadable(what, 'payment reference');
    const state = stateOf(payment.payment_state);
    if (state === undefined) throw unreadable(what, `unknown payment_state "${payment.payment_state.slice(0, 64)}"`);
    const amountCents = centsOf(payment.initial_amount);
    const standing = payment.standing_amount == null ? undefined : centsOf(payment.standing_amount);
    if (amountCents === undefined || (payment.standing_amount != null && standing === undefined)) throw unreadable(what, 'amount');
    // After a refund the standing amount is what is left; without it the refund was whole. A chargeback
    // (the issuer took the payment back) is whole whatever standing_amount shows: EveryPay documents that
    // field for refunds only, and one left as it was made a chargeback after a part refund read as that
    // refund again (the callback inbox's key of it), so the paid order went on for money taken back.
    const chargedBack = payment.payment_state === 'chargebacked';
    const refundedCents = chargedBack
      ? amountCents
      : state === 'refunded'
        ? Math.min(amountCents, Math.max(0, amountCents - (standing ?? 0)))
        : 0;
    const card = cardOf(payment);
    const currency = payment.currency == null ? null : payment.currency.toUpperCase();
    const ownAccount = payment.account_name == null || payment.account_name === config.accountName;
    // Only a payment that saved a card says so; the others answer as they always did.
    return {
      reference,
      orderReference: payment.order_reference,
      state,
      amountCents,
      refundedCents,
      currency,
      ownAccount,
      chargedBack,
      ...(card ? { card } : {}),
    };
  }

  return {
    name: 'everypay',

    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      const what = 'create payment';
      const body = jsonWithAmount(
        {
          api_username: config.apiUsername,
          account_name: config.accountName,
          order_reference: input.orderReference,
          // The same idempotency key gives the same nonce, which EveryPay refuses to use twice:
          // a retried create can never make a second payment.
          nonce: nonceOf('create', input.idempotencyKey),
          timestamp: now().toISOString(),
          customer_url: input.returnUrl,
          email: input.customerEmail,
          ...(input.customerIp === null ? {} : { customer_ip: input.customerIp }),
          locale: input.locale,
          // A card saved for charges the shop starts later, at times and amounts that vary (a
          // subscription's renewals and upgrades): EveryPay's unscheduled token agreement.
          ...(input.requestToken ? { request_token: true, token_agreement: 'unscheduled' } : {}),
        },
        input.amountCents,
        input.requestToken === true,
      );
      const answer = await call(what, 'POST', `${api}/payments/oneoff`, body);
      if (answer.status >= 400) throw refused(what, answer);
      if (!checkCreated.Check(answer.json)) throw unexpected(what, 'no payment reference or link');
      const { payment_reference: reference, payment_link: link } = answer.json;
      if (!REFERENCE.test(reference)) throw unexpected(what, 'payment reference');
      return { reference, redirect: redirectTo(link, what) };
    },

    fetchStatus,

    referenceOf(request: GatewayRequest): string | null {
      const named = [fieldOf(request.query), fieldOf(typeof request.body === 'string' ? formOf(request.body) : request.body)];
      const found = [...new Set(named.filter((value) => value !== undefined))];
      // Two different references in one request name no payment the shop could trust.
      return found.length === 1 && REFERENCE.test(found[0]!) ? found[0]! : null;
    },

    async refund(reference: string, amountCents: number, idempotencyKey: string): Promise<PaymentStatus> {
      const what = 'refund';
      const body = jsonWithAmount(
        {
          api_username: config.apiUsername,
          payment_reference: reference,
          nonce: nonceOf('refund', idempotencyKey),
          timestamp: now().toISOString(),
        },
        amountCents,
      );
      const answer = await call(what, 'POST', `${api}/payments/refund`, body);
      if (answer.status >= 400) throw refused(what, answer);
      if (!checkRefunded.Check(answer.json) || answer.json.payment_reference !== reference) throw unexpected(what, 'not this payment');
      const status = await fetchStatus(reference);
      if (status === null) throw unexpected(what, 'the refunded payment is unknown');
      return status;
    },

    async chargeSavedCard(input: SavedCardChargeInput): Promise<PaymentStatus> {
      const what = 'merchant-initiated charge';
      const body = jsonWithAmount(
        {
          api_username: config.apiUsername,
          account_name: config.accountName,
          order_reference: input.orderReference,
          token: input.token,
          token_agreement: 'unscheduled',
          // A retry under the same key repeats the nonce, which EveryPay refuses: never a second charge.
          nonce: nonceOf('mit', input.idempotencyKey),
          timestamp: now().toISOString(),
          email: input.customerEmail,
        },
        input.amountCents,
      );
      const answer = await call(what, 'POST', `${api}/payments/mit`, body);
      if (answer.status >= 400) throw refused(what, answer);
      if (!checkPayment.Check(answer.json)) throw unexpected(what, 'not a payment');
      if (answer.json.order_reference !== input.orderReference) throw unexpected(what, 'another order reference');
      return statusOf(answer.json, what);
    },

    // EveryPay looks payments up by their own reference only; a charge whose answer was lost is
    // named by the callback EveryPay sends for it (payment_reference and order_reference).
    findPayment: async () => null,
  };
}

/** The saved card of a payment whose cc_details carry a token; null when there is none or a part is missing. */
function cardOf(payment: WirePayment): SavedCard | null {
  const details = payment.cc_details;
  if (!details?.token || !details.last_four_digits || details.month == null || details.year == null) return null;
  const expiryMonth = Number(details.month);
  const expiryYear = Number(details.year);
  if (expiryMonth < 1 || expiryMonth > 12 || expiryYear < 2000 || expiryYear > 2200) return null;
  return {
    token: details.token,
    brand: (details.type ?? 'card').slice(0, 32),
    lastFour: details.last_four_digits,
    expiryMonth,
    expiryYear,
  };
}

/** A nonce per purpose and key: unique per request, the same for a retry of that request. */
function nonceOf(purpose: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${purpose}:${idempotencyKey}`).digest('hex');
}

/**
 * The payment link as a GET form. A form sent with GET replaces the query of its action, so the
 * link's own query (the payment reference) travels as the form's fields.
 */
function redirectTo(link: string, what: string) {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new GatewayUnavailableError('everypay', `${what}: the payment link is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new GatewayUnavailableError('everypay', `${what}: the payment link is not http(s)`);
  const fields = Object.fromEntries(url.searchParams);
  return { url: `${url.origin}${url.pathname}`, method: 'GET' as const, fields };
}

/** Whether a JSON answer names the payment `reference` (its payment_reference), whatever else it holds. */
function namesPayment(json: unknown, reference: string): boolean {
  return fieldOf(json) === reference;
}

function fieldOf(source: unknown): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>).payment_reference;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function formOf(body: string): Record<string, string> | undefined {
  return body === '' ? undefined : Object.fromEntries(new URLSearchParams(body));
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether an answer is EveryPay's error object, `{"error": {"code": 4040, "message": "..."}}`: its
 * code is what tells EveryPay's answer from another JSON service's (`{"error": "Not Found"}`, or an
 * error object of a proxy or framework without one).
 */
function isEveryPayError(json: unknown): boolean {
  return checkError.Check(json) && json.error.code !== undefined;
}

/** The provider's own words of an error answer, short, for the log and the operator. */
function errorText(json: unknown): string {
  if (!checkError.Check(json)) return '';
  const { code, message } = json.error;
  const text = [code, message].filter((part) => part !== undefined).join(' ');
  return text === '' ? '' : `: ${text.slice(0, 200)}`;
}
