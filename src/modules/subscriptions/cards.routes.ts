import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { authenticate } from '../../http/auth.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { addressKey } from '../../infra/address-key.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { notFound } from '../../infra/domain-error.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { isLanguage } from '../../i18n/index.js';
import { lazyCardReturnLinks } from './card-return-link.js';
import { listCards, removeCard, setDefaultCard, settleCardReturn, startCardSaving } from './cards.service.js';
import { CardListQuery, CardReturnQuery, CardSchema, IdParams, RedirectFormSchema } from './subscriptions.schemas.js';
import { subscriberOf } from './subscriptions.repository.js';
import type { SubscriptionsDeps } from './subscriptions.deps.js';
import { registerNoStore } from '../../http/http-cache.js';

const tags = ['subscription credit cards'];
const security = [{ bearer: [] }];

/** Where the front-end shows the outcome of saving a card (the store's front-end URL before it). */
export const CARD_SAVED_PATH = '/account/subscription-cards';

/**
 * The logged-in client's saved cards for subscriptions. POST answers the redirect form of the
 * gateway's card-saving page; the gateway sends the shopper back to GET /subscription-credit-card/return
 * (signed: card-return-link.ts), which asks the gateway (never the request) and redirects to the front-end.
 */
export const cardsRoutes: FastifyPluginAsyncTypebox<SubscriptionsDeps> = async (app, deps) => {
  const db = deps.database.db;
  const api = `${deps.config.publicUrl}${deps.config.basePath}`;
  const returnLinks = lazyCardReturnLinks(db, api);
  const callbackUrl = (gateway: string) => `${api}/payment/${gateway}/callback`;
  registerNoStore(app);
  const owner = async (request: FastifyRequest) => {
    const principal = await authenticate(db, request);
    const user = await subscriberOf(db, principal.userId);
    return { principal, email: user?.email ?? '' };
  };

  app.get(
    '/subscription-credit-card',
    {
      schema: {
        tags,
        summary: "The caller's saved cards (confirmed ones), oldest first: brand, last four digits, expiry, default (paged)",
        headers: StoreRequestHeaders,
        querystring: CardListQuery,
        security,
        response: { 200: success(Type.Array(CardSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      // Paged as every list is: saved cards are bounded only by the card-check limit, and a client may save more each hour.
      const page = pageRequest(request.query);
      const { items, total } = await listCards(db, (await authenticate(db, request)).clientAccountId, page);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.post(
    '/subscription-credit-card',
    {
      schema: {
        tags,
        summary: "Starts saving a card: the redirect form of the gateway's page (nothing is charged; a token is requested)",
        description:
          'Asked again by the same client in the same store within 5 minutes while that card is still being saved (a double ' +
          'click, a retry), the same form: one card and one payment at the gateway. Two at once: the second waits for the ' +
          "first one's form (409 when it takes longer than 10 seconds; try again). Once the card is saved or declined, a new " +
          'card is started. Each request counts against a limit per client (CARD_CHECK_RATE_LIMIT_PER_CLIENT) and per client ' +
          'address (CARD_CHECK_RATE_LIMIT_PER_IP): past either, a 429 with Retry-After.',
        headers: StoreRequestHeaders,
        security,
        response: { 200: success(RedirectFormSchema), ...errors(...storeRouteErrors, 401, 409, 429, 503) },
      },
    },
    async (request) => {
      // A card check that moves no money, declined, may be followed by the next at once: without a limit
      // stolen cards could be tried here one after another. Counted before the work, whatever it ends in.
      const limits = deps.config.cardChecks;
      await consumeRateLimit(db, `card-check:ip:${addressKey(request.ip)}`, limits.perIp, request.actionTime);
      const { principal, email } = await owner(request);
      await consumeRateLimit(db, `card-check:client:${principal.clientAccountId}`, limits.perClient, request.actionTime);
      const language = isLanguage(request.language) ? request.language : 'et';
      const who = { clientAccountId: principal.clientAccountId, storeCode: principal.storeCode, email, language };
      const urls = { returnUrl: (await returnLinks(request.actionTime)).url, callbackUrl };
      return startCardSaving(db, { gateways: deps.gateways, urls }, who, request.ip, request.actionTime);
    },
  );

  app.route({
    method: ['GET', 'POST'],
    url: '/subscription-credit-card/return',
    // A HEAD of the return link (a link checker, a prefetch) must not save the card on the gateway's word: the GET does.
    config: { storeScoped: false, getWrites: "applies the gateway's word on the card (saved or declined)" },
    schema: {
      tags,
      summary: "The shopper's return from the gateway's card page: verified with the gateway, then a redirect to the front-end",
      description: `303 to the store's front-end ${CARD_SAVED_PATH}?cardId=<id>&saved=true|false.`,
      querystring: CardReturnQuery,
      response: { 303: { description: 'To the front-end', type: 'null' }, ...errors(400, 404, 429) },
    },
    handler: async (request, reply) => {
      // Anyone may send this and a pending card's return asks the gateway: limited per address, before the checksum is read.
      await consumeRateLimit(db, `card-return:ip:${addressKey(request.ip)}`, deps.config.returnRateLimit, request.actionTime);
      const { cardId, checksum } = request.query;
      if (!(await returnLinks(request.actionTime)).verify(cardId, checksum)) throw notFound('subscriptions.cardNotFound', { id: cardId });
      const card = await settleCardReturn(db, deps, cardId, request.actionTime);
      const store = card ? await deps.stores.get(card.store_code) : undefined;
      const saved = card?.state === 'ACTIVE';
      const frontend = store?.frontendUrl ?? '';
      return reply.header('Cache-Control', 'no-store').redirect(`${frontend}${CARD_SAVED_PATH}?cardId=${cardId}&saved=${saved}`, 303);
    },
  });

  app.put(
    '/subscription-credit-card/:id/default',
    {
      schema: {
        tags,
        summary: 'Makes a saved card the default one',
        description:
          'New subscriptions without a cardId are paid with it; so is a subscription whose renewal failed (FAILED, retried), ' +
          'from its next retry. Other subscriptions keep their cards.',
        headers: StoreRequestHeaders,
        params: IdParams,
        security,
        response: { 200: success(CardSchema), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request) => {
      const principal = await authenticate(db, request);
      return setDefaultCard(db, principal.clientAccountId, request.params.id, request.actionTime);
    },
  );

  app.delete(
    '/subscription-credit-card/:id',
    {
      schema: {
        tags,
        summary: 'Removes a saved card (its subscriptions move to the default card left)',
        description: 'Only a saved card (one GET lists): a card still being saved, or declined, is a 404 as an unknown one is.',
        headers: StoreRequestHeaders,
        params: IdParams,
        security,
        response: { 204: Type.Null({ description: 'Removed' }), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(db, request);
      await removeCard(db, principal.clientAccountId, request.params.id, request.actionTime);
      return reply.code(204).send(null);
    },
  );
};
