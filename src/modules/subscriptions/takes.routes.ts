import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { authenticate } from '../../http/auth.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { GUEST, type Caller } from '../catalogue/index.js';
import type { SubscriptionsDeps } from './subscriptions.deps.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { IdParams, TakeBody, TakeQuery, TakesListQuery, TakesSchema } from './subscriptions.schemas.js';
import { giveBack, takeProduct, takesPage } from './takes.service.js';
import { registerNoStore } from '../../http/http-cache.js';

const tags = ['subscriptions'];
const security = [{ bearer: [] }];

/** What a subscription gives: GET what it holds, POST to take an audiobook or an e-book, DELETE to take an e-book off the shelf. */
export const takesRoutes: FastifyPluginAsyncTypebox<SubscriptionsDeps> = async (app, deps) => {
  const db = deps.database.db;
  registerNoStore(app);
  const taker = async (request: FastifyRequest) => {
    const principal = await authenticate(db, request);
    // Visibility reads only the caller's kind (public or business catalogue), not discounts.
    const caller: Caller = { ...GUEST, kind: principal.role, clientCode: principal.clientCode, clientAccountId: principal.clientAccountId };
    return { who: { userId: principal.userId, clientAccountId: principal.clientAccountId, storeCode: principal.storeCode }, caller };
  };

  app.get(
    '/subscription/:id/take',
    {
      schema: {
        tags,
        summary: 'What the subscription holds (audiobooks taken, e-books on the shelf; paged) and what it still gives this period',
        headers: StoreRequestHeaders,
        params: IdParams,
        querystring: TakesListQuery,
        security,
        response: { 200: success(TakesSchema), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { takes, total } = await takesPage(db, (await taker(request)).who, request.params.id, page);
      setPaginationHeaders(request, reply, page, total);
      return takes;
    },
  );

  app.post(
    '/subscription/:id/take',
    {
      schema: {
        tags,
        summary: 'Takes a product with the subscription: an audiobook for a credit or from an unlimited plan, an e-book onto the shelf',
        description:
          'AUDIO_CREDITS: one credit of the current period per audiobook (the plan gives creditsPerMonth a period, a trial included; unused ' +
          'credits do not carry over). AUDIO_UNLIMITED: any audiobook. EBOOK_SHELF: at most shelfSize e-books at once. Only downloadable ' +
          'audiobooks and e-books the store sells. The product then appears in GET /download while the subscription lasts. ' +
          '201 with what the subscription holds. 404: not the caller’s subscription. 409: the subscription gives nothing now ' +
          '(not TRIAL or ACTIVE, or its period is over and not renewed yet), no credits left, the shelf is full, or the product is held ' +
          'already. 422: no such product in the store, or the wrong kind for the plan.',
        headers: StoreRequestHeaders,
        params: IdParams,
        body: TakeBody,
        security,
        response: { 201: success(TakesSchema), ...errors(...storeRouteErrors, 401, 404, 409, 415, 422) },
      },
    },
    async (request, reply) => {
      const { who, caller } = await taker(request);
      const takes = await takeProduct(db, who, caller, request.params.id, request.body.productId, request.actionTime);
      return reply.code(201).send(takes);
    },
  );

  app.delete(
    '/subscription/:id/take',
    {
      schema: {
        tags,
        summary: 'Takes an e-book off the shelf (?productId=): its place is free again and it leaves the downloads',
        description:
          'An audiobook stays with the subscription and its credit is not given back: 409. A product the subscription does not hold: 404.',
        headers: StoreRequestHeaders,
        params: IdParams,
        querystring: TakeQuery,
        security,
        response: { 200: success(TakesSchema), ...errors(...storeRouteErrors, 401, 404, 409) },
      },
    },
    async (request) => giveBack(db, (await taker(request)).who, request.params.id, request.query.productId, request.actionTime),
  );
};
