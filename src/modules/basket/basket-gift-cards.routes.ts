import type { FastifyInstance, FastifySchema } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { addCardToBasket, cardLookupKey, lookUpCard, removeCardFromBasket } from '../gift-cards/index.js';
import type { BasketHttp } from './basket-request.routes.js';
import { BasketSchema, GiftCardBody, GiftCardQuery } from './basket.schemas.js';
import { touchBasket } from './basket.repository.js';

/**
 * POST /basket/add-gift-card and DELETE /basket/remove-gift-card: the cards that pay for the
 * basket. A code is looked up before the basket's transaction and counted per address like a
 * discount code (a usable card takes its count back); unknown and expired codes are the same 422.
 */
export async function giftCardRoutes(
  app: FastifyInstance,
  {
    http,
    database,
    wrongCodesPerIp,
    schema,
  }: { http: BasketHttp; database: DatabaseHandle; wrongCodesPerIp: RateLimit; schema: FastifySchema },
): Promise<void> {
  const db = database.db;
  app.post<{ Body: { code: string } }>(
    '/basket/add-gift-card',
    {
      schema: {
        ...schema,
        summary: 'Pays part or all of the basket with a gift card (wrong codes are rate-limited per address)',
        body: GiftCardBody,
        response: { 200: success(BasketSchema), ...errors(...storeRouteErrors, 401, 412, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      // The caller and basket token are checked (401, 400) before a code is looked up and counted.
      const resolved = await http.contextOf(request);
      const card = await lookUpCard(db, request.body.code, request.ip, wrongCodesPerIp, request.actionTime);
      return http.write(
        request,
        reply,
        async (trx, context, basket) => {
          await addCardToBasket(trx, basket.id, card, context.now);
          return touchBasket(trx, basket, context.now);
        },
        resolved,
      );
    },
  );

  app.delete<{ Querystring: { code: string } }>(
    '/basket/remove-gift-card',
    { schema: { ...schema, summary: 'Takes a gift card off the basket', querystring: GiftCardQuery } },
    async (request, reply) => {
      // Before the basket's transaction, as the add's look-up is (cardLookupKey says why).
      const lookupKey = await cardLookupKey(db, request.query.code, request.actionTime);
      return http.write(request, reply, async (trx, context, basket) => {
        await removeCardFromBasket(trx, basket.id, lookupKey, request.query.code);
        return touchBasket(trx, basket, context.now);
      });
    },
  );
}
