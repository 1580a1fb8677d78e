import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { unauthenticated } from '../../infra/domain-error.js';
import { callerResolver } from '../catalogue/index.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { toWireMoney } from '../pricing/index.js';
import { BalanceQuery, BalanceSchema, GiftCardHeaders, VirtualGiftCardListQuery, VirtualGiftCardSchema } from './gift-cards.schemas.js';
import type { GiftCardsSection } from './gift-cards.config.js';
import { clientCardsPage, lookUpCard, type ConfirmedEmailOf } from './gift-cards.service.js';
import { registerNoStore } from '../../http/http-cache.js';

export interface GiftCardsDeps {
  database: DatabaseHandle;
  /** profile's confirmedLoginEmailOf: the address whose received cards a client sees. */
  confirmedEmailOf: ConfirmedEmailOf;
  config: { giftCards: GiftCardsSection };
}

const tags = ['virtual gift cards'];

/**
 * The virtual gift cards group. The balance check is open to anyone with a code and counted per
 * address (GIFT_CARD_GUESS_RATE_LIMIT_PER_IP: unknown and expired codes are counted, a usable one is not
 * but waits like any other past the limit); an unknown code and an expired one get the same answer.
 */
export const giftCardsRoutes: FastifyPluginAsyncTypebox<GiftCardsDeps> = async (app, { database, confirmedEmailOf, config }) => {
  const db = database.db;
  const callerOf = callerResolver(database);
  registerNoStore(app);

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
      const card = await lookUpCard(db, request.query.code, request.ip, config.giftCards.wrongCodesPerIp, request.actionTime);
      if (!card) return { valid: false, balance: 0, currency: 'EUR', expiresAt: null };
      return { valid: true, balance: toWireMoney(card.balanceCents), currency: 'EUR', expiresAt: new Date(card.expiresAt).toISOString() };
    },
  );

  app.get(
    '/virtual-gift-card',
    {
      schema: {
        tags,
        summary: 'The virtual gift cards the caller bought or received, newest first (paged)',
        headers: GiftCardHeaders,
        querystring: VirtualGiftCardListQuery,
        security: [{ bearer: [] }],
        response: { 200: success(Type.Array(VirtualGiftCardSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      if (caller.clientAccountId === null) throw unauthenticated('giftCards.loginRequired');
      const page = pageRequest(request.query);
      const { rows, total } = await clientCardsPage(db, confirmedEmailOf, caller.clientAccountId, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({
        id: Number(row.id),
        role: Number(row.buyer_client_account_id) === caller.clientAccountId ? ('BOUGHT' as const) : ('RECEIVED' as const),
        code: row.mailed_at === null ? null : row.code_hint,
        amount: toWireMoney(Number(row.initial_cents)),
        balance: toWireMoney(Number(row.balance_cents)),
        expiresAt: new Date(Number(row.expires_at)).toISOString(),
        recipientName: row.recipient_name ?? '',
        recipientEmail: row.recipient_email ?? '',
        message: row.message ?? '',
        deliveryAt: new Date(Number(row.deliver_at)).toISOString(),
        delivered: row.mailed_at !== null,
        undeliverable: row.undeliverable_at !== null,
      }));
    },
  );
};
