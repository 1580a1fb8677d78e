import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { addressKey } from '../../infra/address-key.js';
import { hashToken } from '../../infra/tokens.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { translate } from '../../i18n/index.js';
import { allCountries } from '../country/index.js';
import {
  availableDeliveryMethods,
  basketHttp,
  basketCheckout,
  chosenDeliveryWire,
  deliveryMethodWire,
  HOME_COUNTRY,
} from '../basket/index.js';
import { CardBalanceChangedError, recordSeenBalances } from '../gift-cards/index.js';
import type { GatewayName } from '../payments/index.js';
import { savedAddresses } from '../profile/index.js';
import { normaliseSessionId } from '../tracking/index.js';
import { CheckoutAnswer, CheckoutBody, CheckoutHeaders, CheckoutMetaSchema } from './checkout.schemas.js';
import { orderOfKey, placeOrder, type CheckoutActor } from './checkout.service.js';
import type { OrdersHttp } from './orders.deps.js';
import { savedContact } from './orders.repository.js';
import { prepaymentReason, paymentMethodsFor } from './payment-methods.js';
import { registerNoStore } from '../../http/http-cache.js';

const SECURITY: Array<Record<string, string[]>> = [{}, { bearer: [] }];

/** GET /checkout/meta and POST /checkout: what the checkout form offers, and the order it makes. */
export const checkoutRoutes: FastifyPluginAsyncTypebox<OrdersHttp> = async (app, deps) => {
  const { database, urls } = deps;
  const db = database.db;
  const http = basketHttp(database, deps.config.basket);
  const configured = new Set(Object.keys(deps.gateways) as GatewayName[]);
  registerNoStore(app);

  app.get(
    '/checkout/meta',
    {
      schema: {
        tags: ['checkout'],
        summary: "Delivery and payment methods for the caller's basket, countries, and a logged-in client's contact data",
        headers: CheckoutHeaders,
        security: SECURITY,
        response: { 200: success(CheckoutMetaSchema), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request) => {
      const { context, owner } = await http.contextOf(request);
      const priced = await basketCheckout.currentBasket(db, context, owner);
      const methods = await availableDeliveryMethods(db, context, priced);
      const countries = await allCountries(db, request.language);
      return {
        deliveryRequired: basketCheckout.needsDelivery(priced),
        deliveryMethods: methods.map(deliveryMethodWire),
        chosenDelivery: chosenDeliveryWire(priced),
        paymentMethods: paymentMethodsFor(context.caller.kind, configured, prepaymentReason(priced) !== null).map((method) => ({
          id: method.id,
          name: translate(request.language, method.nameKey),
          online: method.gateway !== null,
          deliveryKinds: method.deliveryKinds === null ? null : [...method.deliveryKinds],
        })),
        countries: countries.map((country) => ({ navCode: country.code, name: country.name, isDefault: country.code === HOME_COUNTRY })),
        contact: context.caller.clientAccountId === null ? null : ((await savedContact(db, context.caller.clientAccountId)) ?? null),
        addresses: context.caller.clientAccountId === null ? [] : await savedAddresses(db, context.caller.clientAccountId),
      };
    },
  );

  app.post(
    '/checkout',
    {
      schema: {
        tags: ['checkout'],
        summary: 'Makes an order of the basket and answers where to pay it',
        description:
          'In one transaction: the basket priced afresh, the order (NEW) with its lines, stock held, the code counted, the basket emptied. ' +
          'The same Idempotency-Key, or the same unchanged basket within 10 minutes, with the same form answers the first order; with another form it is a 409 naming that order and changes nothing. ' +
          'deliveryMethodId and the shipping fields are not asked of a basket with nothing to ship (deliveryRequired in GET /checkout/meta). ' +
          'A body without deliveryMethodId takes the delivery chosen on the basket (PUT /basket/delivery) with its parcel machine, shop or country, ' +
          'by the same rules as one named: no longer available is a 422 on its field, and a courier or international delivery chosen for another country than shippingCountryNavCode a 422 on that. ' +
          "A body naming one wins over the basket's (what the shopper confirmed on the checkout page) and the order is priced with it. " +
          '400: empty basket; 409: the last copies sold, a gift card pays less than the basket showed, or a repeat with another form; 422: every field and line at fault.',
        headers: CheckoutHeaders,
        security: SECURITY,
        body: CheckoutBody,
        response: { 200: success(CheckoutAnswer), ...errors(...storeRouteErrors, 401, 409, 413, 415, 422, 429) },
      },
    },
    async (request) => {
      await consumeRateLimit(db, `checkout:ip:${addressKey(request.ip)}`, deps.config.orders.checkoutRateLimit, request.actionTime);
      const { context, owner } = await http.contextOf(request);
      const actor: CheckoutActor = {
        context,
        owner,
        // A key names one checkout of one store's basket: the same key sent in another store (a guest's
        // basket token, or a client, holds a basket in each) is another checkout, never that store's order.
        idempotencyScope:
          owner.kind === 'client'
            ? `${context.store.code}:client:${owner.clientAccountId}`
            : owner.token !== undefined
              ? `${context.store.code}:guest:${hashToken(owner.token)}`
              : null,
      };
      const input = {
        form: request.body,
        idempotencyKey: request.headers['idempotency-key'],
        // Kept as the session actions keep it, so the sale joins its basket additions in the export.
        sessionId: normaliseSessionId(request.headers['x-session-id']),
        gateways: configured,
        jobs: deps.config.jobs,
      };
      let orderId: number;
      try {
        orderId = (await db.transaction().execute((trx) => placeOrder(trx, actor, input, context.now))).orderId;
      } catch (error) {
        // The 409 tells the shopper a card's balance changed: from now on its balance counts as seen
        // (a write of its own, the checkout having rolled back), so the basket read again shows the
        // share the next checkout holds.
        if (error instanceof CardBalanceChangedError) await recordSeenBalances(db, error.basketId);
        // Two requests with one key at once: the one that lost the insert answers the winner's order
        // as a repeat (its own form the same, else the key's 409).
        if (!isUniqueViolation(error)) throw error;
        const earlier = await orderOfKey(db, actor, input);
        if (!earlier) throw error;
        orderId = earlier.orderId;
      }
      return { location: urls.createFormUrl(orderId) };
    },
  );
};
