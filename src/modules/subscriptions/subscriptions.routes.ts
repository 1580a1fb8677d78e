import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { authenticate } from '../../http/auth.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { cardsRoutes } from './cards.routes.js';
import type { SubscriptionsDeps } from './subscriptions.deps.js';
import { listPlans } from './plans.js';
import { takesRoutes } from './takes.routes.js';
import { ChangePlanBody, IdParams, PlanSchema, SubscribeBody, SubscriptionListQuery, SubscriptionSchema } from './subscriptions.schemas.js';
import { cancelSubscription, changePlan, listSubscriptions, subscribe } from './subscriptions.service.js';

const security = [{ bearer: [] }];
const languageOf = (request: FastifyRequest): Language => (isLanguage(request.language) ? request.language : 'et');

/** Subscription plans (public), and the logged-in client's subscriptions and saved cards. */
export type { SubscriptionsDeps };

export const subscriptionsRoutes: FastifyPluginAsyncTypebox<SubscriptionsDeps> = async (app, deps) => {
  const db = deps.database.db;
  await app.register(cardsRoutes, deps);
  await app.register(takesRoutes, deps);
  const subscriber = async (request: FastifyRequest) => {
    const principal = await authenticate(db, request);
    return { userId: principal.userId, clientAccountId: principal.clientAccountId, storeCode: principal.storeCode };
  };
  /** A request that may charge the saved card at once (subscribing, an upgrade): one limit per client for both. */
  const countCharging = (who: { clientAccountId: number }, now: number) =>
    consumeRateLimit(db, `subscribe:client:${who.clientAccountId}`, deps.config.subscribePerClient, now);

  app.get(
    '/subscription-plan',
    {
      schema: {
        tags: ['subscription plans'],
        summary: "The store's subscription plans with titles in the caller's language",
        headers: StoreRequestHeaders,
        response: { 200: success(Type.Array(PlanSchema)), ...errors(...storeRouteErrors) },
      },
    },
    async (request) => listPlans(db, request.store!.code, languageOf(request)),
  );

  const tags = ['subscriptions'];
  const noStore = {
    onRequest: async (_request: FastifyRequest, reply: { header(name: string, value: string): unknown }) =>
      void reply.header('Cache-Control', 'no-store'),
  };

  app.get(
    '/subscription',
    {
      ...noStore,
      schema: {
        tags,
        summary: "The caller's subscriptions, newest first (ended ones too; paged)",
        headers: StoreRequestHeaders,
        querystring: SubscriptionListQuery,
        security,
        response: { 200: success(Type.Array(SubscriptionSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      // Paged as every list is: every subscription a client ever had stays listed (a declined first month too).
      const page = pageRequest(request.query);
      const { items, total } = await listSubscriptions(db, await subscriber(request), page, languageOf(request));
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.post(
    '/subscription',
    {
      ...noStore,
      schema: {
        tags,
        summary:
          'Subscribes to a plan: a trial when the user and the client account never had one of its kind, else the first month is charged',
        description:
          '201 with the subscription (TRIAL or ACTIVE; PENDING while the bank decides on the first month: the outcome is mailed). The same request again within 5 minutes (a double click, a retry) answers the subscription it made. 409 when another subscription of the same family (audio, e-book) lives, or the card was declined; 422 for an unknown plan or card, no saved card, or a saved card that can no longer be charged (save it again). ' +
          'Each request (whatever it is answered) counts against a limit per client (SUBSCRIBE_RATE_LIMIT_PER_CLIENT): past it, a 429 with Retry-After.',
        headers: StoreRequestHeaders,
        body: SubscribeBody,
        security,
        response: { 201: success(SubscriptionSchema), ...errors(...storeRouteErrors, 401, 409, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const who = await subscriber(request);
      // Without a trial each request charges the saved card at the gateway, and a declined one (409, an
      // ENDED row) may be sent again at once: card schemes fine merchants for retries of declined charges.
      // Every request counts, before any work, as the card checks do: whether one will reach the gateway
      // (trial or not, card usable) is decided under the client's lock in the subscribe transaction, where
      // a hit must not be counted, and what does not reach it is cheap and rare for a real subscriber.
      await countCharging(who, request.actionTime);
      const sub = await subscribe(db, deps, who, request.body, languageOf(request), request.actionTime);
      return reply.code(201).send(sub);
    },
  );

  app.put(
    '/subscription/:id/plan',
    {
      ...noStore,
      schema: {
        tags,
        summary: 'Switches the plan: an upgrade is charged now for the days left; a downgrade takes effect at the period end',
        description:
          'Proration: docs/architecture.md (Subscriptions). The current plan again calls off a pending downgrade. ' +
          "During a trial an upgrade keeps the trial only as far as the new plan's own trial reaches from the trial's start, " +
          "else ends it and charges the new plan's first month now (409 when declined: the trial goes on); a downgrade waits for the trial's end. " +
          'Each request counts against the same limit per client as subscribing (SUBSCRIBE_RATE_LIMIT_PER_CLIENT): past it, a 429 with Retry-After.',
        headers: StoreRequestHeaders,
        params: IdParams,
        body: ChangePlanBody,
        security,
        response: { 200: success(SubscriptionSchema), ...errors(...storeRouteErrors, 401, 404, 409, 415, 422, 429, 503) },
      },
    },
    async (request) => {
      const who = await subscriber(request);
      // An upgrade charges the saved card at once, and a declined one may be sent again at once, as a subscription may.
      await countCharging(who, request.actionTime);
      return changePlan(db, deps, who, request.params.id, request.body.planId, languageOf(request), request.actionTime);
    },
  );

  app.delete(
    '/subscription/:id',
    {
      ...noStore,
      schema: {
        tags,
        summary: 'Cancels at the period end (access until then); a subscription whose renewal failed ends at once',
        description:
          '409 while one of its charges is still with the gateway (a renewal or its retry, an upgrade): its outcome decides ' +
          'the period first; try again once it is confirmed (Retry-After: 60). A charge whose answer has not come in 10 ' +
          'minutes is looked up hourly, then daily: its 409 says so and asks the customer to contact customer service if ' +
          'it lasts a day (Retry-After: 3600). The plan change answers the same.',
        headers: StoreRequestHeaders,
        params: IdParams,
        security,
        response: { 200: success(SubscriptionSchema), ...errors(...storeRouteErrors, 401, 404, 409) },
      },
    },
    async (request) => cancelSubscription(db, await subscriber(request), request.params.id, languageOf(request), request.actionTime),
  );
};
