import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { CallbackSender, type CallbackFormat, type CallbackOptions, type SentCallback } from './everypay-callbacks.js';
import { listenOnLoopback } from './loopback.js';
import { ccDetailsOf, issueCard, validateMit, type FakeCard } from './everypay-server-mit.js';
import {
  paymentPage,
  validateOneoff,
  validateRefund,
  type ApiError,
  type EveryPayState,
  type FakePayment,
} from './everypay-server-rules.js';

export type { EveryPayState, FakePayment };

/**
 * A local EveryPay (API v4) on 127.0.0.1 for tests, speaking the real API over real HTTP:
 * - HTTP Basic with the API username and secret on every API call, and `api_username` again in the
 *   body (POST) or query (GET), which must be the same user;
 * - POST /api/v4/payments/oneoff (bodies validated; nonce and, by default, order_reference unique;
 *   `request_token` with a `token_agreement` saves the card when it settles, amount 0 allowed),
 * - POST /api/v4/payments/mit: a merchant-initiated charge of a saved card's token (everypay-server-mit.ts),
 *   GET /api/v4/payments/{payment_reference}?api_username=, POST /api/v4/payments/refund;
 * - answers in EveryPay's shapes (amounts as decimal euros), errors as {"error": {"code", "message"}}
 *   with 401 (credentials), 404 (unknown payment), 422 (invalid or refused request);
 * - a hosted payment page at the payment link (Pay, Decline, Cancel) that sends the shopper back to
 *   customer_url with payment_reference and order_reference, and a callback to the callback URL the
 *   "merchant portal" holds (given at construction, like EveryPay's one per shop).
 * Every state change sends a callback unless callbacks are held; answerAfterCallbacks makes an API call
 * wait for its callbacks to be answered. The error codes are this fake's own.
 */

export interface ApiRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  body: unknown;
}

/** How the API misbehaves: an HTTP error, no answer at all, or an answer that is not JSON. */
/**
 * `lost-answer`: the request is carried out, then the connection drops before the answer. `other-amount`: it
 * is carried out, and the answer names an amount a cent above the payment's (the shop must not trust it).
 */
export type Breakage = { status: number; body?: string } | 'hang' | 'bad-json' | 'lost-answer' | 'other-amount';

/**
 * A 404 as another JSON service answers one (Fastify's own shape), without EveryPay's error object:
 * what the shop meets when EVERYPAY_API_URL names the wrong host or path.
 */
export const NOT_EVERYPAYS_404 = {
  status: 404,
  body: '{"message":"Route GET:/api/v4/payments not found","error":"Not Found","statusCode":404}',
} as const satisfies Breakage;

export interface EveryPayServerOptions {
  apiUsername?: string;
  apiSecret?: string;
  /** The processing account the shop is set up with (EVERYPAY_ACCOUNT_NAME), in EUR. */
  accountName?: string;
  /**
   * The merchant's other processing accounts and the currency of each (e.g. `{ USD3D1: 'USD' }`): a
   * one-off or a merchant-initiated charge may name any of the merchant's accounts, and its payment
   * is in that account's currency.
   */
  otherAccounts?: Record<string, string>;
  /** The "Callback Notification URL" of the merchant portal; none: no callbacks until setCallbackUrl. */
  callbackUrl?: string;
  callbackFormat?: CallbackFormat;
  /** EveryPay refuses a second payment for an order reference unless the merchant turned that off. */
  uniqueOrderReference?: boolean;
  /** Keep every API request in `requests` (tests look at them); a benchmark of 100,000 charges turns it off. */
  recordRequests?: boolean;
  /** The length of the card tokens it issues (48 hex characters by default; its API documents no length). */
  cardTokenLength?: number;
}

export interface EveryPayServer {
  /** http://127.0.0.1:<port>: what EVERYPAY_API_URL is set to. */
  url: string;
  apiUsername: string;
  apiSecret: string;
  accountName: string;
  /** Every API request received, in order (the hosted page's are not API requests). */
  requests: ApiRequest[];
  callbacks: SentCallback[];
  payment(reference: string): FakePayment | undefined;
  paymentsFor(orderReference: string): FakePayment[];
  setCallbackUrl(url: string | null): void;
  settle(reference: string, options?: CallbackOptions): Promise<SentCallback[]>;
  fail(reference: string, options?: CallbackOptions): Promise<SentCallback[]>;
  abandon(reference: string, options?: CallbackOptions): Promise<SentCallback[]>;
  void(reference: string, options?: CallbackOptions): Promise<SentCallback[]>;
  refund(reference: string, amountCents: number, options?: CallbackOptions): Promise<SentCallback[]>;
  /** Any state, e.g. waiting_for_3ds_response or chargebacked, with its callback. */
  setState(reference: string, state: EveryPayState, options?: CallbackOptions): Promise<SentCallback[]>;
  /** A callback for a payment as it is now: repeated (times), late (delayMs). */
  notify(reference: string, options?: CallbackOptions): Promise<SentCallback[]>;
  /** A callback EveryPay never made: any fields, e.g. a payment_reference it never issued. */
  forgeCallback(fields: Record<string, string>, options?: CallbackOptions): Promise<SentCallback[]>;
  holdCallbacks(): void;
  releaseCallbacks(order?: 'made' | 'reversed'): Promise<SentCallback[]>;
  /** Resolves when every callback on its way has been answered. */
  callbacksIdle(): Promise<void>;
  /**
   * The next `times` API requests (1 when left out; only those to `path` when given) are carried out,
   * and then answered only once the callbacks they made, and those held, have been delivered and
   * answered by the shop: the callback is applied while the shop's own call is still outstanding
   * (the callback-first order, made certain). The callback's own status fetch must not match: give a
   * path, or a number of times the callbacks' fetches come after. `andThen` runs once the answer is made
   * and before the callbacks go: a change EveryPay makes just after it answered (the bank decides), so
   * the shop gets an answer older than the callback it applied meanwhile.
   */
  answerAfterCallbacks(options?: { path?: string; times?: number; andThen?: () => unknown }): void;
  /**
   * The next API request to `path` is carried out at once and answered only when `until` resolves: a
   * slow answer, EveryPay's word as it stood when asked, arriving after it changed (and called back).
   */
  answerLate(path: string, until: Promise<unknown>): void;
  /** A payment the shop did not ask for (another amount for an order's reference, say), without a callback. */
  addPayment(input: {
    orderReference: string;
    amountCents: number;
    customerUrl?: string;
    state?: EveryPayState;
    /** One of the merchant's accounts (otherAccounts); the shop's own when left out. */
    accountName?: string;
  }): FakePayment;
  /** The shopper on the payment page: Pay, Decline or Cancel through HTTP; answers where the browser goes back to. */
  shopper(reference: string, action: 'pay' | 'decline' | 'cancel'): Promise<string>;
  /** The cards saved so far (their tokens), in order. */
  cards(): FakeCard[];
  /**
   * How the next merchant-initiated charges of a saved card end (its bank approves or declines them);
   * `processing`: answered as sent_for_processing, and ending so right after, with a callback.
   */
  setCardOutcome(token: string, outcome: 'settled' | 'failed', options?: { processing?: boolean }): void;
  /**
   * The API misbehaves for the next `times` requests (every request when left out), or only for
   * those to `path`: a test that breaks one charge must not have the breakage taken by a late
   * callback's status fetch from an earlier step. null repairs it.
   */
  breakApi(breakage: Breakage | null, times?: number, path?: string): void;
  close(): Promise<void>;
}

const EVENT_OF: Partial<Record<EveryPayState, string>> = {
  voided: 'voided',
  refunded: 'refunded',
  abandoned: 'abandoned',
  chargebacked: 'chargebacked',
};
const SHOPPER_STATE = { pay: 'settled', decline: 'failed', cancel: 'abandoned' } as const;

export async function startEveryPayServer(options: EveryPayServerOptions = {}): Promise<EveryPayServer> {
  const apiUsername = options.apiUsername ?? 'shop-api-user';
  const apiSecret = options.apiSecret ?? randomBytes(16).toString('hex');
  const accountName = options.accountName ?? 'EUR3D1';
  const accounts: Record<string, string> = { ...options.otherAccounts, [accountName]: 'EUR' };
  const uniqueOrderReference = options.uniqueOrderReference ?? true;
  const payments = new Map<string, FakePayment>();
  // Payments by order reference too: the uniqueness check and paymentsFor are one lookup, not a
  // scan of every payment (a billing benchmark makes 100,000 of them).
  const byOrderReference = new Map<string, FakePayment[]>();
  const recordRequests = options.recordRequests ?? true;
  const nonces = new Set<string>();
  const cards = new Map<string, FakeCard>();
  const requests: ApiRequest[] = [];
  const callbacks = new CallbackSender(options.callbackUrl, options.callbackFormat ?? 'form');
  let breakage: { how: Breakage; left: number; path?: string } | null = null;
  let lateAnswers: { left: number; path?: string; andThen?: () => unknown } | null = null;
  let slowAnswer: { path: string; until: Promise<unknown> } | null = null;
  let url = '';

  const linkOf = (payment: FakePayment) => `${url}/lp?payment_reference=${payment.reference}`;
  const wire = (p: FakePayment) => ({
    account_name: p.accountName,
    currency: p.currency,
    order_reference: p.orderReference,
    email: p.email,
    customer_ip: p.customerIp,
    customer_url: p.customerUrl,
    payment_created_at: p.createdAt,
    initial_amount: p.initialCents / 100,
    standing_amount: p.standingCents / 100,
    payment_reference: p.reference,
    payment_link: linkOf(p),
    api_username: apiUsername,
    warnings: {},
    stan: null,
    fraud_score: null,
    payment_state: p.state,
    payment_method: p.state === 'initial' ? null : 'card',
    cc_details: ccDetailsOf(p),
    transaction_time: p.state === 'initial' ? null : new Date().toISOString(),
  });

  function add(input: Omit<FakePayment, 'reference' | 'createdAt' | 'standingCents' | 'state'> & { state?: EveryPayState }) {
    const payment: FakePayment = {
      ...input,
      reference: randomBytes(28).toString('hex'),
      state: input.state ?? 'initial',
      standingCents: input.initialCents,
      createdAt: new Date().toISOString(),
    };
    payments.set(payment.reference, payment);
    const same = byOrderReference.get(payment.orderReference);
    if (same) same.push(payment);
    else byOrderReference.set(payment.orderReference, [payment]);
    return payment;
  }

  function change(reference: string, state: EveryPayState, callback: CallbackOptions = {}): Promise<SentCallback[]> {
    const payment = payments.get(reference);
    if (!payment) throw new Error(`the EveryPay server never issued payment ${reference}`);
    payment.state = state;
    if (state === 'chargebacked') payment.standingCents = 0;
    // A payment that asked for a token saves the card when it settles.
    if (state === 'settled' && payment.tokenAgreement && !payment.card) {
      payment.card = issueCard(payment.tokenAgreement, options.cardTokenLength);
      cards.set(payment.card.token, payment.card);
    }
    return notify(payment, { eventName: EVENT_OF[state] ?? 'status_updated', ...callback });
  }

  function notify(payment: FakePayment, callback: CallbackOptions = {}): Promise<SentCallback[]> {
    const fields = {
      payment_reference: payment.reference,
      order_reference: payment.orderReference,
      event_name: callback.eventName ?? 'status_updated',
    };
    return callbacks.send(fields, callback);
  }

  function authorised(req: IncomingMessage, user: unknown): ApiError | null {
    const expected = `Basic ${Buffer.from(`${apiUsername}:${apiSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return { status: 401, code: 4010, message: 'Unauthorized: wrong API username or secret' };
    if (user !== apiUsername) return { status: 401, code: 4011, message: 'api_username does not match the authenticated user' };
    return null;
  }

  function api(req: IncomingMessage, path: string, query: URLSearchParams, body: unknown): { status: number; json: unknown } {
    const error = (e: ApiError) => ({ status: e.status, json: { error: { code: e.code, message: e.message } } });
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const status = /^\/api\/v4\/payments\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && status && !['oneoff', 'refund', 'mit'].includes(status[1]!)) {
      const denied = authorised(req, query.get('api_username'));
      if (denied) return error(denied);
      const payment = payments.get(decodeURIComponent(status[1]!));
      return payment ? { status: 200, json: wire(payment) } : error({ status: 404, code: 4040, message: 'Payment not found' });
    }
    const posts = ['/api/v4/payments/oneoff', '/api/v4/payments/refund', '/api/v4/payments/mit'];
    if (req.method !== 'POST' || !posts.includes(path)) {
      return error({ status: 404, code: 4041, message: 'Not found' });
    }
    if (body === undefined) return error({ status: 400, code: 4000, message: 'The body must be a JSON object' });
    const denied = authorised(req, fields.api_username);
    if (denied) return error(denied);
    if (path.endsWith('/oneoff')) {
      const valid = validateOneoff(fields, {
        accounts,
        nonces,
        taken: (ref) => uniqueOrderReference && byOrderReference.has(ref),
      });
      if ('status' in valid) return error(valid);
      nonces.add(valid.nonce);
      return { status: 201, json: wire(add({ ...valid, currency: accounts[valid.accountName]! })) };
    }
    if (path.endsWith('/mit')) {
      const valid = validateMit(fields, {
        accounts,
        nonces,
        taken: (ref) => uniqueOrderReference && byOrderReference.has(ref),
        card: (token) => cards.get(token),
      });
      if ('status' in valid) return error(valid);
      nonces.add(valid.nonce);
      const payment = add({
        orderReference: valid.orderReference,
        initialCents: valid.initialCents,
        customerUrl: 'http://127.0.0.1/',
        email: valid.email,
        customerIp: null,
        locale: null,
        nonce: valid.nonce,
        accountName: valid.accountName,
        currency: accounts[valid.accountName]!,
        state: valid.card.processing ? 'sent_for_processing' : valid.card.outcome,
      });
      payment.paidWith = valid.card;
      const answer = { status: 201, json: wire(payment) };
      // No shopper: the charge is decided at once (or just after the answer, when the bank is slow), and
      // the callback tells the shop as for any payment.
      if (valid.card.processing) void change(payment.reference, valid.card.outcome);
      else void notify(payment);
      return answer;
    }
    const valid = validateRefund(fields, { nonces, payment: (ref) => payments.get(ref) });
    if ('status' in valid) return error(valid);
    nonces.add(valid.nonce);
    valid.payment.standingCents -= valid.amountCents;
    valid.payment.state = 'refunded';
    void notify(valid.payment, { eventName: 'refunded' });
    return { status: 200, json: wire(valid.payment) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const target = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (target.pathname.startsWith('/lp')) return page(req, res, target, rawBody);
    const body = parseJson(rawBody);
    if (recordRequests)
      requests.push({
        method: req.method ?? 'GET',
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        headers: { ...req.headers },
        rawBody,
        body,
      });
    if (breakage && (breakage.path === undefined || breakage.path === target.pathname)) {
      const { how } = breakage;
      if (--breakage.left <= 0) breakage = null;
      if (how === 'hang') return; // never answered; close() drops the socket
      if (how === 'lost-answer') {
        api(req, target.pathname, target.searchParams, body);
        return void res.destroy();
      }
      if (how === 'other-amount') {
        const { status, json } = api(req, target.pathname, target.searchParams, body) as {
          status: number;
          json: { initial_amount: number };
        };
        const answer = { ...json, initial_amount: Math.round(json.initial_amount * 100 + 1) / 100 };
        return void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
      if (how === 'bad-json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"payment_reference": ');
      return void res
        .writeHead(how.status, { 'content-type': 'application/json' })
        .end(how.body ?? '{"error":{"code":5000,"message":"Internal error"}}');
    }
    const late = lateAnswers !== null && (lateAnswers.path === undefined || lateAnswers.path === target.pathname) ? lateAnswers : null;
    if (late && --late.left <= 0) lateAnswers = null;
    const slow = slowAnswer?.path === target.pathname ? slowAnswer : null;
    if (slow) slowAnswer = null;
    const answer = api(req, target.pathname, target.searchParams, body);
    if (late) {
      await late.andThen?.();
      await callbacks.flush();
    }
    if (slow) await slow.until;
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer.json));
  }

  /** The hosted payment page and its three buttons. */
  function page(req: IncomingMessage, res: ServerResponse, target: URL, rawBody: string): void {
    const action = /^\/lp\/(pay|decline|cancel)$/.exec(target.pathname)?.[1] as keyof typeof SHOPPER_STATE | undefined;
    const reference = (action ? new URLSearchParams(rawBody) : target.searchParams).get('payment_reference') ?? '';
    const payment = payments.get(reference);
    if (!payment || (action && req.method !== 'POST') || (!action && target.pathname !== '/lp')) {
      return void res
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Not found</title><p>Payment not found</p>');
    }
    if (!action) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(paymentPage(payment));
    if (payment.state === 'initial') void change(reference, SHOPPER_STATE[action]);
    const back = new URL(payment.customerUrl);
    back.searchParams.set('payment_reference', payment.reference);
    back.searchParams.set('order_reference', payment.orderReference);
    res.writeHead(302, { location: back.toString() }).end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400).end();
    });
  });
  url = `http://127.0.0.1:${await listenOnLoopback(server)}`;

  return {
    url,
    apiUsername,
    apiSecret,
    accountName,
    requests,
    callbacks: callbacks.sent,
    payment: (reference) => payments.get(reference),
    paymentsFor: (orderReference) => [...(byOrderReference.get(orderReference) ?? [])],
    setCallbackUrl(callbackUrl) {
      callbacks.url = callbackUrl;
    },
    settle: (reference, options) => change(reference, 'settled', options),
    fail: (reference, options) => change(reference, 'failed', options),
    abandon: (reference, options) => change(reference, 'abandoned', options),
    void: (reference, options) => change(reference, 'voided', options),
    refund(reference, amountCents, options) {
      const payment = payments.get(reference);
      if (!payment || amountCents <= 0 || amountCents > payment.standingCents)
        throw new Error(`cannot refund ${amountCents} of ${reference}`);
      payment.standingCents -= amountCents;
      return change(reference, 'refunded', options);
    },
    setState: (reference, state, options) => change(reference, state, options),
    notify(reference, options) {
      const payment = payments.get(reference);
      if (!payment) throw new Error(`the EveryPay server never issued payment ${reference}`);
      return notify(payment, options);
    },
    forgeCallback: (fields, options) => callbacks.send(fields, options),
    holdCallbacks: () => callbacks.hold(),
    releaseCallbacks: (order) => callbacks.release(order),
    callbacksIdle: () => callbacks.idle(),
    answerAfterCallbacks({ path, times = 1, andThen } = {}) {
      lateAnswers = { left: times, path, andThen };
    },
    answerLate(path, until) {
      slowAnswer = { path, until };
    },
    addPayment: (input) =>
      add({
        orderReference: input.orderReference,
        initialCents: input.amountCents,
        customerUrl: input.customerUrl ?? 'http://127.0.0.1/',
        state: input.state,
        accountName: input.accountName ?? accountName,
        currency: accounts[input.accountName ?? accountName]!,
        email: null,
        customerIp: null,
        locale: null,
        nonce: randomBytes(8).toString('hex'),
      }),
    async shopper(reference, action) {
      const response = await fetch(`${url}/lp/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ payment_reference: reference }).toString(),
        redirect: 'manual',
      });
      const location = response.headers.get('location');
      if (response.status !== 302 || location === null) throw new Error(`the payment page answered ${response.status}`);
      return location;
    },
    cards: () => [...cards.values()],
    setCardOutcome(token, outcome, { processing = false } = {}) {
      const card = cards.get(token);
      if (!card) throw new Error(`the EveryPay server never issued token ${token}`);
      card.outcome = outcome;
      card.processing = processing;
    },
    breakApi(how, times = Infinity, path) {
      breakage = how === null ? null : { how, left: times, path };
    },
    async close() {
      await callbacks.idle();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
