import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { toWireMoney } from '../pricing/index.js';
import { BalanceQuery, BalanceSchema, GiftCardHeaders } from './gift-cards.schemas.js';
import { lookUpCard } from './gift-cards.service.js';

export interface GiftCardsDeps {
  database: DatabaseHandle;
}

const tags = ['virtual gift cards'];

/**
 * The virtual gift cards group. The balance check is open to anyone with a code and counted per
 * address (WRONG_GIFT_CARD_CODE_LIMIT: unknown and expired codes keep their count, a usable one
 * takes it back); an unknown code and an expired one get the same answer.
 */
export const giftCardsRoutes: FastifyPluginAsyncTypebox<GiftCardsDeps> = async (app, { database }) => {
  const db = database.db;
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
  });

  app.get(
    '/virtual-gift-card/balance',
    {
      schema: {
        tags,
        summary: "A gift card's balance and expiry by its code (rate-limited per address)",
        headers: GiftCardHeaders,
        querystring: BalanceQuery,
        response: { 200: success(BalanceSchema), ...errors(...storeRouteErrors, 429) },
      },
    },
    async (request) => {
      const card = await lookUpCard(db, request.query.code, request.ip, request.actionTime);
      if (!card) return { valid: false, balance: 0, currency: 'EUR', expiresAt: null };
      return { valid: true, balance: toWireMoney(card.balanceCents), currency: 'EUR', expiresAt: new Date(card.expiresAt).toISOString() };
    },
  );
};
