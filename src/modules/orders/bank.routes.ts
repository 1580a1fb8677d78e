import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { inTransaction } from '../../db/after-commit.js';
import { errors, success } from '../../http/schemas.js';
import { addressKey } from '../../infra/address-key.js';
import { PausedError } from '../../infra/circuit-breaker.js';
import { answeredAt } from '../../infra/clock.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { DomainError, notFound } from '../../infra/domain-error.js';
import { wrongGuesses } from '../../infra/wrong-guesses.js';
import { translate, type MessageKey } from '../../i18n/index.js';
import type { GatewayName, RedirectForm } from '../payments/index.js';
import { GatewayRefusedError, GatewayUnavailableError, pausedLookUp, refusesWhatWasAsked } from '../payments/index.js';
import { PAID } from './order-states.js';
import { orderDetail } from './order-detail.service.js';
import { OrderLinkQuery, PaymentResultBody, PaymentResultSchema } from './order.schemas.js';
import { toOrderWire } from './order.wire.js';
import type { OrdersHttp } from './orders.deps.js';
import { findOrder, type OrderRow } from './orders.repository.js';
import { applyPaymentStatus, type ApplyOutcome } from './payment-status.service.js';
import { checkPaymentStart, settleReturn, startPayment } from './payment.service.js';
import { registerNoStore } from '../../http/http-cache.js';
import { refuseLockedStore } from '../../http/request-context.js';

// The banking helpers and the gateways' callbacks. None is store-scoped: the gateway and the
// shopper's browser come back without a store header; the order knows its store. An order is
// named by its id and checksum (a wrong checksum is the same 404 as no order).

const RedirectFormSchema = Type.Object({
  url: Type.String(),
  method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
  fields: Type.Record(Type.String(), Type.String()),
});
const ReturnQuery = Type.Object({
  orderId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  checksum: Type.String({ maxLength: 128 }),
  language: Type.Optional(Type.String({ maxLength: 5 })),
  // A bank's silent server-to-server ping (VK_AUTO=Y) or any backup ping: a bare 200.
  VK_AUTO: Type.Optional(Type.String({ maxLength: 1 })),
  silent: Type.Optional(Type.String({ maxLength: 5 })),
});
const GatewayParams = Type.Object({ gateway: Type.String({ maxLength: 20 }) });
const notStoreScoped = { storeScoped: false };

export const bankRoutes: FastifyPluginAsyncTypebox<OrdersHttp> = async (app, deps) => {
  const { database, checksum, urls, gateways } = deps;
  const db = database.db;
  // Gateways and banks post forms; only these routes take them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  registerNoStore(app);
  // Callbacks that name no payment of the gateway (or none at all), per sending address.
  const forgedCallbacks = wrongGuesses(db, deps.config.orders.callbackRateLimit, 'callback-miss');
  const forged = (error: unknown) =>
    (error instanceof DomainError && (error.kind === 'not-found' || error.kind === 'bad-request')) ||
    // The gateway refused to show what the callback names (EveryPay: a 4xx other than 404, say for a
    // reference that is none of its forms): nothing verified, so it counts as naming no payment; left
    // uncounted, a flood of such references was a call to the gateway each, never refused. A 429 is the
    // gateway throttling the shop's own calls, which says nothing of the sender (a billing run's genuine
    // callbacks meet it too): the adapters report it as unavailable, not refused, so it counts nothing.
    // Nor does a refusal of the shop itself (its credentials, EveryPay's 401/403, a 404 that is not
    // EveryPay's: EVERYPAY_API_URL names another service): every callback, the gateway's own too, meets
    // it until an operator fixes them, and it pauses the look-ups (below).
    refusesWhatWasAsked(error);
  // A gateway whose status look-up met an outage is not asked again by callbacks for a while. Counted
  // against neither its address (genuine ones come from the gateway's few servers) nor the payment it
  // names (a forger names a new one each time), every forged callback during an outage was a call to the
  // failing gateway. Each is a 503 meanwhile, which the gateway retries: its retry after the outage
  // settles the payment once. The shopper's returns (of orders here, of saved cards in subscriptions)
  // look up through the same pause (payments' look-up-pauses.ts): while it lasts they ask nothing
  // either, and an outage a return meets pauses the callbacks' look-ups too.
  const pauseOf = deps.lookUpPauses;

  /** The order of a link; a wrong checksum counts against the address (infra/wrong-guesses.ts). */
  async function linkedOrder(orderId: number, sent: string, request: { ip: string; actionTime: number }): Promise<OrderRow> {
    await deps.guesses.verified(request.ip, request.actionTime, checksum.verify(orderId, sent), () => notFound('checkout.orderNotFound'));
    const order = await findOrder(db, orderId);
    if (!order) throw notFound('checkout.orderNotFound');
    return order;
  }

  const createForm = {
    config: notStoreScoped,
    schema: {
      tags: ['checkout'],
      summary: "Starts the order's payment: the form the front-end auto-submits (or the finished page when nothing is paid online)",
      description:
        "423 while the order's store is locked for maintenance: no payment starts; the same link works once the lock ends. " +
        'HEAD answers the status a GET would, without the body, and starts nothing.',
      querystring: OrderLinkQuery,
      response: { 200: success(RedirectFormSchema, 'plain'), ...errors(400, 404, 409, 423, 429, 503) },
    },
  };
  // HEAD is its own route: the one Fastify would add runs the GET's handler, which starts the payment
  // (a gateway call, a payment row, the order moved) for a link checker, a mail scanner or a prefetch.
  app.get('/bank/create-form', { ...createForm, exposeHeadRoute: false }, async (request): Promise<RedirectForm> => {
    const order = await linkedOrder(request.query.orderId, request.query.checksum, request);
    // Not store-scoped (the shopper's browser brings no store header), but a payment in the order's store.
    refuseLockedStore(await deps.stores.get(order.store_code), request.actionTime);
    return startPayment(db, { gateways, urls, clock: deps.clock }, order.id, request.ip, request.actionTime);
  });
  app.head('/bank/create-form', createForm, async (request, reply) => {
    const order = await linkedOrder(request.query.orderId, request.query.checksum, request);
    refuseLockedStore(await deps.stores.get(order.store_code), request.actionTime);
    await checkPaymentStart(db, gateways, order.id, request.actionTime);
    // No body: the form would be the payment's, which a HEAD does not start.
    return (reply as FastifyReply).type('application/json; charset=utf-8').send();
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/bank/return-internal',
    // A HEAD (a link checker, a browser's prefetch of the return URL) must not apply the gateway's word:
    // it marked the order paid, queued its processing and emitted its events. The GET or POST does it.
    config: { ...notStoreScoped, getWrites: "applies the gateway's status of the order's payment (paid, failed)" },
    schema: {
      tags: ['checkout'],
      summary:
        "The shopper's return from the gateway: verified with the gateway, then a redirect to the front-end's finished or failed page",
      querystring: ReturnQuery,
      response: {
        303: {
          description:
            "To the front-end's finished page, or its failed page when the payment failed, with the order's id, checksum and language (?orderId=&checksum=&language=)",
          type: 'null',
        },
        200: { description: 'A silent or backup ping (VK_AUTO=Y, silent=1): an empty answer', type: 'null' },
        ...errors(400, 404, 429),
      },
    },
    handler: async (request, reply) => {
      // A return of an unpaid order asks the gateway, and anyone may repeat one: limited per address, before the checksum is read.
      await consumeRateLimit(db, `bank-return:ip:${addressKey(request.ip)}`, deps.config.orders.callbackRateLimit, request.actionTime);
      const query = request.query;
      const order = await linkedOrder(query.orderId, query.checksum, request);
      // Never a 503 for a person's browser: a gateway down or paused leaves the order as it is, and the
      // finished page shows its payment pending (/bank/payment-result) until the callback or the sweep tells.
      const status = await settleReturn(db, { gateways, pauses: pauseOf, clock: deps.clock }, order, request.actionTime);
      if (query.VK_AUTO === 'Y' || query.silent === '1' || query.silent === 'true') return reply.code(200).type('text/plain').send('');
      const failed = status === 'PAYMENT_FAILED' || status === 'CANCELLED' || status === 'FAILED';
      const target = failed ? await urls.failedUrl(order) : await urls.finishedUrl(order);
      return reply.redirect(target, 303);
    },
  });

  app.post(
    '/bank/payment-result',
    {
      config: notStoreScoped,
      schema: {
        tags: ['checkout'],
        summary: "The checkout summary page's data: the order, and whether it was paid",
        description:
          "The orderId and checksum are those of the front-end's order links: the pages after the bank, and the order page " +
          "(ORDER_PAGE_PATH) the buyer's order mail links to, which reads the order here.",
        body: PaymentResultBody,
        response: { 200: success(PaymentResultSchema, 'plain'), ...errors(400, 404, 415, 429) },
      },
    },
    async (request) => {
      const order = await linkedOrder(request.body.orderId, request.body.checksum, request);
      const detail = await orderDetail(db, order);
      const result = PAID.includes(order.status)
        ? 'SUCCESS'
        : order.status === 'NEW' || order.status === 'PENDING_PAYMENT'
          ? 'PENDING'
          : 'FAILED';
      const language = (['et', 'en', 'ru'] as const).find((code) => code === order.language) ?? request.language;
      return {
        result,
        reason: result === 'FAILED' ? translate(language, failureReason(order.status)) : null,
        order: toOrderWire(detail),
      } as const;
    },
  );

  app.route({
    method: ['GET', 'POST'],
    url: '/payment/:gateway/callback',
    // A gateway notifies with GET or POST; a HEAD is nobody's notification and records none (payment_callback).
    config: { ...notStoreScoped, getWrites: "records the callback and applies the gateway's status of the payment it names" },
    schema: {
      tags: ['checkout'],
      summary: "A gateway's notification: the payment it names is fetched from the gateway and applied once",
      params: GatewayParams,
      response: { 200: Type.Object({ outcome: Type.String() }), ...errors(400, 404, 429, 503) },
    },
    // Each callback makes us call the gateway: a flood of forged ones must not turn into one there.
    // Yet a genuine callback is never refused for its address: the gateway sends every shop's
    // callbacks from a few servers, and a billing run (subscriptions) makes them arrive several a
    // second, more than any per-address limit low enough to matter would let through. So a forged
    // flood is limited twice instead: a callback naming no payment of the gateway counts against
    // its address (past PAYMENT_CALLBACK_RATE_LIMIT_PER_IP, a 429 before the gateway is asked), and
    // the callbacks naming one payment count against it (PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT), so
    // a real reference sent again and again cannot either. A genuine payment's callbacks are a few.
    // While the gateway is down a look-up tells nothing, so neither count can be kept: a look-up that
    // meets the outage pauses the others (PAYMENT_CALLBACK_GATEWAY_PAUSE), each callback a 503 at once.
    handler: async (request) => {
      let outcome: ApplyOutcome;
      try {
        outcome = await forgedCallbacks.checked(request.ip, request.actionTime, () => applyCallback(request), forged);
      } catch (error) {
        // The gateway retries a callback we could not verify.
        if (error instanceof PausedError) throw new DomainError('unavailable', 'checkout.gatewayUnavailable', {}, error.secondsLeft);
        if (error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError)
          throw new DomainError('unavailable', 'checkout.gatewayUnavailable', {}, 30);
        throw error;
      }
      // A payment the gateway showed (so not forged: a genuine one comes from the gateway's own
      // servers) that no order or subscription of the shop knows, say one made by another system on
      // the same account. Counted, it held up every genuine callback from that address past the limit.
      if (outcome === 'unknown') throw notFound('checkout.unknownPayment');
      return { outcome };
    },
  });

  async function applyCallback(request: {
    params: { gateway: string };
    query: unknown;
    body: unknown;
    actionTime: number;
    log: { warn(details: object, message: string): void };
  }): Promise<ApplyOutcome> {
    // Own names only: `constructor` or `toString` would find the object's prototype's members.
    const name = request.params.gateway;
    const gateway = Object.hasOwn(gateways, name) ? gateways[name as GatewayName] : undefined;
    if (!gateway) throw notFound('checkout.unknownGateway', { gateway: request.params.gateway.slice(0, 20) });
    const reference = gateway.referenceOf({ query: request.query as Record<string, unknown>, body: request.body });
    if (reference === null) throw new DomainError('bad-request', 'checkout.callbackWithoutReference');
    // While the gateway is known to be down nothing is counted either: a genuine payment's retries
    // during a long outage must not use up its callbacks before the one that settles it.
    pauseOf(gateway.name).admit();
    await consumeRateLimit(db, `callback:payment:${gateway.name}:${reference}`, deps.config.orders.callbacksPerPayment, request.actionTime);
    // A gateway that cannot be reached, or refuses the look-up, throws: the handler answers 503.
    const status = await pausedLookUp(pauseOf, gateway, reference);
    if (!status) throw notFound('checkout.unknownPayment');
    const other = await deps.otherPayments?.(gateway.name, status, request.actionTime);
    if (other === 'mismatch')
      request.log.warn(
        { gateway: gateway.name, orderReference: status.orderReference },
        'payment does not match the card or charge it names',
      );
    if (other) return other;
    // Stamped when the gateway answered the look-up, not when the callback came (answeredAt says why).
    const at = answeredAt(deps.clock, request.actionTime);
    const applied = await inTransaction(db, (trx) => applyPaymentStatus(trx, gateway.name, status, 'callback', at));
    if (applied.outcome === 'mismatch')
      request.log.warn({ gateway: gateway.name, orderId: applied.orderId }, 'payment does not match its order');
    return applied.outcome;
  }
};

/** What the failed page tells the shopper about an order that was not paid. */
function failureReason(status: string): MessageKey {
  if (status === 'CANCELLED') return 'checkout.result.cancelled';
  if (status === 'PAYMENT_FAILED') return 'checkout.result.paymentFailed';
  return 'checkout.result.failed';
}
