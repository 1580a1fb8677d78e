import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { pageRequest, setLinkHeader, setPaginationHeaders } from '../../http/paging.js';
import { errors, success } from '../../http/schemas.js';
import type { Clock } from '../../infra/clock.js';
import { InvalidInputError, invalidField } from '../../infra/domain-error.js';
import { authenticateOperator } from '../admin/index.js';
import {
  NavStatusBody,
  OrderCodeParams,
  OrderDocumentSchema,
  OrderFeedQuery,
  PickupSchema,
  ReadyForPickupBody,
  RefundBody,
  RefundHeaders,
} from './admin-orders.schemas.js';
import { orderFeed, reportNavStatusOf } from './processing/admin-orders.service.js';
import { reportCollected, reportReadyForPickup, type PickupState } from './processing/pickup.service.js';
import { refundOrder } from './processing/order-refunds.js';
import type { Gateways } from '../payments/index.js';

// The operators' order endpoints (operator API key, not store-scoped): the back office's pull
// feed, its report of its own order time and status, of a pickup order's hand-over in the shop, and
// refunds through the order's gateway.

export interface AdminOrdersDeps {
  database: DatabaseHandle;
  /** The configured payment gateways by name; a refund goes through the order's. */
  gateways: Gateways;
  /** The app's clock: a refund's change is stamped when the gateway answered it, not when it was asked. */
  clock: Clock;
  /** ORDER_FEED_SETTLE_MS: the feed shows a change once it is this old (orders.config.ts). */
  feedSettleMs: number;
}

const security = [{ bearer: [] }];

/**
 * A preValidation hook refusing the body's fields `schema` does not name, each with the message an
 * unknown field gets everywhere. The validator would drop them silently (it removes what a closed
 * object does not name), and a schema that refuses them itself (`additionalProperties: Never`)
 * says "is invalid", as of a bad value of a field that exists.
 */
function refuseUnknownFields(schema: TObject) {
  return async (request: FastifyRequest) => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const unknown = Object.keys(body).filter((field) => !Object.hasOwn(schema.properties, field));
    if (unknown.length > 0)
      throw new InvalidInputError(unknown.map((field) => ({ field, messageKey: 'validation.unknownField', params: { field } })));
  };
}

export const adminOrdersRoutes: FastifyPluginAsyncTypebox<AdminOrdersDeps> = async (app, { database, gateways, clock, feedSettleMs }) => {
  const { db } = database;
  const operator = async (request: Parameters<typeof authenticateOperator>[1]) => {
    await authenticateOperator(db, request);
  };

  app.get(
    '/admin/orders',
    {
      config: { storeScoped: false },
      onRequest: operator,
      schema: {
        tags: ['admin'],
        summary: "The back office's pull feed: orders changed since a time, oldest change first",
        security,
        querystring: OrderFeedQuery,
        response: { 200: success(Type.Array(OrderDocumentSchema), 'list'), ...errors(400, 401, 422, 500) },
      },
    },
    async (request, reply) => {
      const { updatedSince, after } = request.query;
      const since = updatedSince === undefined ? 0 : Date.parse(updatedSince);
      if (after !== undefined && request.query.page !== undefined && request.query.page !== 1)
        throw invalidField('page', 'orders.pageWithCursor');
      const page = pageRequest(request.query);
      const [updatedAt, id] = after === undefined ? [] : after.split('.').map(Number);
      const cursor = updatedAt === undefined || id === undefined ? undefined : { updatedAt, id };
      // Changes of the last moments are left for the next poll: one stamped earlier may still commit before them.
      const until = request.actionTime - feedSettleMs;
      const { orders, total, next } = await orderFeed(db, since, { offset: page.offset, limit: page.perPage, cursor, until });
      setPaginationHeaders(request, reply, page, total);
      const nextCursor = next && `${next.updatedAt}.${next.id}`;
      if (nextCursor) reply.header('X-Next-Cursor', nextCursor);
      if (cursor) {
        // Page numbers mean nothing after a cursor: the walk's one link is its next page.
        const [path, search = ''] = request.url.split('?', 2);
        const query = new URLSearchParams(search);
        query.delete('page');
        if (nextCursor) query.set('after', nextCursor);
        if (nextCursor) setLinkHeader(reply, `<${path}?${query.toString()}>; rel="next"`);
        else reply.removeHeader('Link');
      }
      return orders;
    },
  );

  app.post(
    '/admin/orders/:code/status',
    {
      config: { storeScoped: false },
      onRequest: operator,
      schema: {
        tags: ['admin'],
        summary: "The back office reports its own status and order time (fills the data export's createdNav)",
        description:
          'The back office has the order: one waiting for its hand-off is COMPLETED. The same status and time again change ' +
          'nothing and answer as the first did. A processed order the sweep failed (FAILED: its hand-off got through, the answer ' +
          "was lost) is revived, COMPLETED, taking again its gift cards' shares, its discount code's use and its downloads; " +
          'when they cannot all be taken (its gift cards were spent since, or the gift cards it bought were voided) it is a 409 ' +
          "that says why, nothing changed and the order still FAILED: do not ship it (the refusal is recorded for the shop's " +
          'operators, who settle the order). 409 too for an order not paid.',
        security,
        params: OrderCodeParams,
        body: NavStatusBody,
        response: { 200: success(OrderDocumentSchema, 'plain'), ...errors(400, 401, 404, 409, 415, 422, 500) },
      },
    },
    async (request) => {
      const createdAt = Date.parse(request.body.createdAt);
      const now = request.actionTime;
      return reportNavStatusOf(db, request.params.code, { status: request.body.status, createdAt }, now, request.log);
    },
  );

  app.post(
    '/admin/orders/:code/ready-for-pickup',
    {
      config: { storeScoped: false },
      onRequest: operator,
      preValidation: refuseUnknownFields(ReadyForPickupBody),
      schema: {
        tags: ['admin'],
        summary: 'The back office reports a pickup order put out in its shop, and the last day it is kept there',
        description:
          'The first report mails the buyer (and the receiver, when another address) that the order is ready, and queues a ' +
          'reminder for 10:00 on the day before the last day when that is a day or more away. The same report again changes ' +
          'nothing; another last day moves the reminder and mails nothing new. 409 for an order not collected in a shop, not ' +
          'paid (or cancelled), or collected already.',
        security,
        params: OrderCodeParams,
        body: ReadyForPickupBody,
        response: { 200: success(PickupSchema, 'plain'), ...errors(400, 401, 404, 409, 415, 422, 500) },
      },
    },
    async (request) =>
      pickupWire(
        await db.transaction().execute((trx) => reportReadyForPickup(trx, request.params.code, request.body.collectBy, request.actionTime)),
      ),
  );

  app.post(
    '/admin/orders/:code/collected',
    {
      config: { storeScoped: false },
      onRequest: operator,
      schema: {
        tags: ['admin'],
        summary: 'The back office reports a pickup order collected: no reminder goes after it',
        description: 'Reported again, the first time stays. 409 for an order not collected in a shop, or not paid (or cancelled).',
        security,
        params: OrderCodeParams,
        response: { 200: success(PickupSchema, 'plain'), ...errors(400, 401, 404, 409, 500) },
      },
    },
    async (request) => pickupWire(await db.transaction().execute((trx) => reportCollected(trx, request.params.code, request.actionTime))),
  );

  app.post(
    '/admin/orders/:code/refund',
    {
      config: { storeScoped: false },
      onRequest: operator,
      preValidation: refuseUnknownFields(RefundBody),
      schema: {
        tags: ['admin'],
        summary: "Refunds all or part of the order's settled payment through its gateway",
        description:
          'Never more than was paid less what was spent of the gift cards the order bought (409 past it); the unspent value ' +
          'it gives back of those cards is taken off them first, and X-Refund-Held-Back names the euros held back as spent. ' +
          'A refund answered 503 (no answer from the gateway) is finished by sending it again (the same amount, or the same ' +
          'Idempotency-Key): that looks the payment up at the gateway and answers what became of it, refunding once; the key ' +
          'sent with another amount is a 409 that sends nothing. A ' +
          'refund sent while another of the payment is at the gateway is a 409, sent nowhere. Without a key, the same amount ' +
          'asked again within 5 minutes of a refund made (a double click) answers that refund; two refunds of one sum within ' +
          '5 minutes each need an Idempotency-Key.',
        security,
        params: OrderCodeParams,
        headers: RefundHeaders,
        body: RefundBody,
        response: { 200: success(OrderDocumentSchema, 'plain'), ...errors(400, 401, 404, 409, 415, 422, 500, 503) },
      },
    },
    async (request, reply) => {
      const { amount } = request.body;
      let cents: number | undefined;
      if (amount !== undefined) {
        cents = Math.round(amount * 100);
        // A sum the schema lets through (more than 0) may still be 0 cents (1e-9): a refund of nothing.
        if (cents <= 0 || Math.abs(cents - amount * 100) > 1e-6) throw invalidField('amount', 'orders.cents');
      }
      const requestKey = request.headers['idempotency-key'];
      const refund = { amountCents: cents, requestKey };
      const { document, heldBackCents } = await refundOrder(
        db,
        { gateways, clock, log: request.log },
        request.params.code,
        refund,
        request.actionTime,
      );
      if (heldBackCents > 0) void reply.header('X-Refund-Held-Back', (heldBackCents / 100).toFixed(2));
      return document;
    },
  );
};

function pickupWire(state: PickupState) {
  const time = (ms: number | null) => (ms === null ? null : toRfc3339(ms));
  return { ...state, readyAt: time(state.readyAt), collectedAt: time(state.collectedAt) };
}
