import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { addressKey } from '../../infra/address-key.js';
import { notFound } from '../../infra/domain-error.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { callerResolver, catalogueContext } from '../catalogue/index.js';
import type { BackInStockSection } from './back-in-stock.config.js';
import { clientRequestPage, deleteClientRequest, type BackInStockRow } from './back-in-stock.repository.js';
import {
  BackInStockBody,
  BackInStockConfirmBody,
  BackInStockListItem,
  BackInStockParams,
  BackInStockQuery,
  BackInStockSchema,
  GuestBackInStockSchema,
} from './back-in-stock.schemas.js';
import type { ConfirmedEmailOf, WantsBackInStockMails } from './back-in-stock.jobs.js';
import { confirmBackInStock, requestBackInStock, requestingClient } from './back-in-stock.service.js';
import { registerNoStore } from '../../http/http-cache.js';

export interface BackInStockDeps {
  database: DatabaseHandle;
  /** profile's confirmedLoginEmailOf: a client whose login email is not confirmed asks nothing (409). */
  confirmedEmailOf: ConfirmedEmailOf;
  wantsBackInStockMails: WantsBackInStockMails;
  config: { backInStock: BackInStockSection };
}

const tags = ['back-in-stock'];
const iso = (ms: number) => new Date(ms).toISOString();
const wire = (row: BackInStockRow) => ({
  id: Number(row.id),
  productId: Number(row.product_id),
  email: row.email,
  createdAt: iso(Number(row.created_at)),
  expiresAt: iso(Number(row.expires_at)),
  notifiedAt: row.notified_at === null ? null : iso(Number(row.notified_at)),
});

/**
 * Back-in-stock requests. POST is open to clients (201 for a new request, 200 for one that was
 * there, re-armed for 14 days, with the stored row) and to guests with an email: a guest is
 * answered 202 and only what it sent and the new expiry, whether or not the address asked before
 * or confirmed. A guest's request is told only once the address follows the link mailed to it
 * (POST /back-in-stock/confirm, anonymous, limited per client address before validation).
 * GET and DELETE are a logged-in client's, in the request's store; another client's id is the same
 * 404 as an unknown one. Every answer is `no-store`.
 */
export const backInStockRoutes: FastifyPluginAsyncTypebox<BackInStockDeps> = async (
  app,
  { database, confirmedEmailOf, wantsBackInStockMails, config },
) => {
  const db = database.db;
  const callerOf = callerResolver(database);
  registerNoStore(app);

  app.post(
    '/back-in-stock',
    {
      schema: {
        tags,
        summary: 'Asks for one mail when a product that is not available now can be bought again (kept 14 days)',
        description:
          '409: the product is available now, or the logged-in client has not confirmed its login email ' +
          '(GET /client-account: emailConfirmed), whose mailbox is then not known to be theirs, or has switched ' +
          'back-in-stock mails off (GET /client-account/preferences: notifications.backInStock). A request made before ' +
          'they were switched off is told nothing while they are off.',
        headers: StoreRequestHeaders,
        body: BackInStockBody,
        security: [{}, { bearer: [] }],
        response: {
          200: success(BackInStockSchema),
          201: success(BackInStockSchema),
          202: success(GuestBackInStockSchema),
          ...errors(...storeRouteErrors, 401, 404, 409, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const context = catalogueContext(request, await callerOf(request));
      const outcome = await requestBackInStock(
        db,
        config.backInStock,
        { confirmedEmailOf, wantsBackInStockMails },
        {
          caller: context.caller,
          storeCode: context.store.code,
          language: context.language,
          now: context.now,
          ip: request.ip,
          productId: request.body.productId,
          email: request.body.email,
        },
      );
      if (outcome.kind === 'guest') {
        return reply.code(202).send({ productId: outcome.productId, email: outcome.email, expiresAt: iso(outcome.expiresAt) });
      }
      return reply.code(outcome.created ? 201 : 200).send(wire(outcome.row));
    },
  );

  app.post(
    '/back-in-stock/confirm',
    {
      // Counted before validation, so malformed requests count too.
      preValidation: async (request) =>
        consumeRateLimit(db, `back-in-stock-confirm:ip:${addressKey(request.ip)}`, config.backInStock.confirmPerIp, request.actionTime),
      schema: {
        tags,
        summary:
          "Follow the confirmation link of a guest's request: it is confirmed now and waits 14 days from now. Followed again, the link answers as the first time (400 for a link unknown or expired)",
        headers: StoreRequestHeaders,
        body: BackInStockConfirmBody,
        response: { 200: success(GuestBackInStockSchema), ...errors(...storeRouteErrors, 413, 415, 422, 429) },
      },
    },
    async (request) => {
      const confirmed = await db.transaction().execute((trx) => confirmBackInStock(trx, request.body.token, request.actionTime));
      return { productId: confirmed.productId, email: confirmed.email, expiresAt: iso(confirmed.expiresAt) };
    },
  );

  app.get(
    '/back-in-stock',
    {
      schema: {
        tags,
        summary: "The logged-in client's requests in this store that have not expired, newest first",
        headers: StoreRequestHeaders,
        querystring: BackInStockQuery,
        security: [{ bearer: [] }],
        response: { 200: success(Type.Array(BackInStockListItem), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const context = catalogueContext(request, await callerOf(request));
      const owner = { clientAccountId: requestingClient(context.caller), storeCode: context.store.code };
      const page = pageRequest(request.query);
      const { rows, total } = await clientRequestPage(db, owner, context.now, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({ ...wire(row), productCode: row.product_code, productName: row.product_name }));
    },
  );

  app.delete(
    '/back-in-stock/:id',
    {
      schema: {
        tags,
        summary: "Withdraws one of the logged-in client's requests",
        headers: StoreRequestHeaders,
        params: BackInStockParams,
        security: [{ bearer: [] }],
        response: { 204: Type.Null({ description: 'Withdrawn' }), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const context = catalogueContext(request, await callerOf(request));
      const owner = { clientAccountId: requestingClient(context.caller), storeCode: context.store.code };
      if (!(await deleteClientRequest(db, owner, request.params.id))) throw notFound('backInStock.notFound');
      return reply.code(204).send(null);
    },
  );
};
