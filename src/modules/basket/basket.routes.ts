import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { requestStore } from '../../http/request-context.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import type { Caller } from '../catalogue/index.js';
import { toWireMoney } from '../pricing/index.js';
import type { SessionActionRecorder } from '../tracking/index.js';
import { basketHttp } from './basket-request.routes.js';
import type { BasketSection } from './basket.config.js';
import type { GiftCardsSection } from '../gift-cards/index.js';
import { priceBasket } from './basket-pricing.js';
import {
  AddProductBody,
  BasketHeaders,
  BasketSchema,
  BasketTotalsSchema,
  ChangeQuantityBody,
  DeliveryBody,
  DeliveryMethodSchema,
  DiscountBody,
  RemoveProductQuery,
  DeliveryMethodsQuery,
} from './basket.schemas.js';
import { addProduct, basketReads, changeQuantity, clearBasket, removeProduct } from './basket.service.js';
import { availableDeliveryMethods, chooseDelivery } from './delivery/delivery.service.js';
import { applyDiscountCode, lookUpDiscountCode, removeDiscountCode } from './discount-codes/discount-code.service.js';
import { deliveryMethodWire } from './delivery/delivery.wire.js';
import { mergeRoute } from './merge.routes.js';
import { basketProductCache } from './basket-product-cache.js';
import { giftCardRoutes } from './basket-gift-cards.routes.js';
import { registerNoStore } from '../../http/http-cache.js';

export interface BasketDeps {
  database: DatabaseHandle;
  /** How long GET /basket may show a product as read (the catalogue's cache period, CATALOGUE_CACHE_TTL_MS). */
  productTtlMs: number;
  /** Buffered writer of session actions: adding a product records ADD_TO_BASKET. */
  sessionActions: SessionActionRecorder;
  config: { basket: BasketSection; giftCards: GiftCardsSection };
}

const tags = ['basket'];
const readErrors = errors(...storeRouteErrors, 401);
// 429: a guest past its writes or new baskets per address (BASKET_WRITE_RATE_LIMIT_PER_IP, BASKET_RATE_LIMIT_PER_IP).
const writeErrors = errors(...storeRouteErrors, 401, 404, 412, 413, 415, 422, 429);
const SECURITY: Array<Record<string, string[]>> = [{}, { bearer: [] }];

/**
 * The basket group. A guest's basket is found by the `basket-token` header (minted on the first
 * write and returned in the same header and in the body); a bearer token's client has one basket
 * per store, and a basket-token header never reaches it. Every answer is `Cache-Control:
 * no-store`; a write with a stale `If-Match` is a 412 and changes nothing.
 */
export const basketRoutes: FastifyPluginAsyncTypebox<BasketDeps> = async (app, { database, sessionActions, productTtlMs, config }) => {
  const db = database.db;
  registerNoStore(app);

  const products = basketProductCache(database, productTtlMs);
  const http = basketHttp(database, config.basket, products);
  // The read path's queries, compiled once.
  const reads = basketReads(database, products);

  /** The basket as it is now (none: the empty answer); a guest's token is echoed only when it found a basket. */
  async function current(request: FastifyRequest) {
    const { context, owner } = await http.contextOf(request);
    const basket = await reads.find(owner, context.store.code, context.now);
    const token = basket && owner.kind === 'guest' ? (owner.token ?? null) : null;
    return { context, priced: await priceBasket(db, context, basket, reads), token };
  }

  const common = { tags, headers: BasketHeaders, security: SECURITY };
  const written = { 200: success(BasketSchema), ...writeErrors };

  app.get(
    '/basket',
    {
      schema: {
        ...common,
        summary: 'The basket with its lines and totals, priced for the caller now',
        response: { 200: success(BasketSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const { priced, token } = await current(request);
      return http.answer(reply, request, priced, token);
    },
  );

  app.get(
    '/basket/totals',
    {
      schema: {
        ...common,
        summary: 'Item count and total only, for a header badge',
        response: { 200: success(BasketTotalsSchema), ...readErrors },
      },
    },
    async (request) => {
      const { priced } = await current(request);
      return { itemCount: priced.itemCount, total: toWireMoney(priced.totalCents), currency: 'EUR' };
    },
  );

  app.post(
    '/basket/add-product',
    { schema: { ...common, summary: 'Adds a quantity of a product (records ADD_TO_BASKET)', body: AddProductBody, response: written } },
    async (request, reply) => {
      let added: { code: string; caller: Caller } | undefined;
      const answer = await http.writeLines(request, reply, async (trx, context, basket, queries) => {
        const result = await addProduct(trx, queries, context, basket, request.body);
        added = { code: result.product.code, caller: context.caller };
        return result.lines;
      });
      if (added) {
        const session = request.headers['x-session-id'];
        sessionActions.record({
          sessionId: typeof session === 'string' ? session : '',
          storeCode: requestStore(request).code,
          productCode: added.code,
          clientCode: added.caller.clientCode,
          actionType: 'ADD_TO_BASKET',
          createdAt: request.actionTime,
        });
      }
      return answer;
    },
  );

  app.put(
    '/basket/change-quantity',
    { schema: { ...common, summary: "Sets a line's quantity; 0 removes it", body: ChangeQuantityBody, response: written } },
    (request, reply) =>
      http.write(request, reply, (trx, context, basket, queries) => changeQuantity(trx, queries, context, basket, request.body)),
  );

  app.delete(
    '/basket/remove-product',
    { schema: { ...common, summary: 'Removes a product from the basket', querystring: RemoveProductQuery, response: written } },
    (request, reply) =>
      http.write(request, reply, (trx, context, basket) => removeProduct(trx, basket, request.query.productId, context.now)),
  );

  app.delete(
    '/basket/clear',
    { schema: { ...common, summary: 'Empties the basket: lines, discount code and delivery choice', response: written } },
    async (request, reply) => {
      const { owner, context } = await http.contextOf(request);
      // Nothing to clear: no basket (and no token) is made for it.
      if (!(await reads.find(owner, context.store.code, context.now))) {
        return http.answer(reply, request, await priceBasket(db, context, undefined), null);
      }
      return http.write(request, reply, (trx, ctx, basket) => clearBasket(trx, basket, ctx.now));
    },
  );

  app.post(
    '/basket/add-discount',
    {
      schema: {
        ...common,
        summary: 'Puts a discount code on the basket (one per basket; wrong codes are rate-limited per address)',
        body: DiscountBody,
        response: { 200: success(BasketSchema), ...errors(...storeRouteErrors, 401, 412, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      // The caller and basket token are checked (401, 400) before a code is looked up and counted.
      const resolved = await http.contextOf(request);
      const code = await lookUpDiscountCode(db, request.body.code, request.ip, config.basket.wrongCodesPerIp, request.actionTime);
      return http.write(request, reply, (trx, context, basket) => applyDiscountCode(trx, context, basket, code), resolved);
    },
  );

  app.delete(
    '/basket/remove-discount',
    { schema: { ...common, summary: 'Takes the discount code off the basket', response: written } },
    (request, reply) => http.write(request, reply, (trx, context, basket) => removeDiscountCode(trx, basket, context.now)),
  );

  app.get(
    '/basket/delivery-methods',
    {
      schema: {
        ...common,
        summary: 'The delivery methods this basket can use, with price, free threshold and estimate',
        querystring: DeliveryMethodsQuery,
        response: { 200: success(Type.Array(DeliveryMethodSchema)), ...readErrors },
      },
    },
    async (request) => {
      const { context, priced } = await current(request);
      return (await availableDeliveryMethods(db, context, priced, request.query.countryCode)).map(deliveryMethodWire);
    },
  );

  app.put(
    '/basket/delivery',
    {
      schema: {
        ...common,
        summary: 'Chooses the delivery method (and parcel machine, shop or country)',
        body: DeliveryBody,
        response: written,
      },
    },
    (request, reply) => http.write(request, reply, (trx, context, basket) => chooseDelivery(trx, context, basket, request.body)),
  );

  await mergeRoute(app, { http, schema: { ...common, response: written } });
  await giftCardRoutes(app, {
    http,
    database,
    wrongCodesPerIp: config.giftCards.wrongCodesPerIp,
    schema: { ...common, response: written },
  });
};
