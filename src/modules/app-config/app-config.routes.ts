import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requestStore } from '../../http/request-context.js';
import { errors, Money, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { virtualCardRange } from '../gift-cards/index.js';

const AppConfigSchema = Type.Object({
  store: Type.String({ description: 'Web store code' }),
  name: Type.String(),
  isActive: Type.Boolean(),
  language: Type.String({ description: 'Language of this answer' }),
  languages: Type.Array(Type.String(), { description: 'Languages the store offers' }),
  defaultLanguage: Type.String(),
  currency: Type.String(),
  frontendUrl: Type.String(),
  virtualGiftCardAmount: Type.Object(
    { min: Money(), max: Money() },
    { description: 'The amounts a virtual gift card is sold for (giftCard.amount of POST /basket/add-product), in whole cents' },
  ),
});

/** App utilities and configuration: what a front-end needs to know about the store at start-up. */
export const appConfigRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/app/config',
    {
      schema: {
        tags: ['app'],
        summary: 'Configuration of the web store the request is scoped to',
        headers: StoreRequestHeaders,
        response: { 200: success(AppConfigSchema), ...errors(...storeRouteErrors) },
      },
    },
    async (request) => {
      const store = requestStore(request);
      const cardRange = virtualCardRange(store.code);
      return {
        store: store.code,
        name: store.name,
        isActive: store.isActive,
        language: request.language,
        languages: store.availableLanguages,
        defaultLanguage: store.defaultLanguage,
        currency: store.currency,
        frontendUrl: store.frontendUrl,
        virtualGiftCardAmount: { min: cardRange.minCents / 100, max: cardRange.maxCents / 100 },
      };
    },
  );
};
