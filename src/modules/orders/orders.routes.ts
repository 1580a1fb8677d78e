import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bankRoutes } from './bank.routes.js';
import { checkoutRoutes } from './checkout.routes.js';
import { checksumSecret, orderChecksum } from './checksum.js';
import { orderRoutes } from './order.routes.js';
import { orderDownloadsRoutes } from './order-downloads.routes.js';
import { giftDownloadsRoutes } from './gift-downloads.routes.js';
import { giftKeys } from './gift-key.js';
import { paymentUrls, type OrdersDeps } from './orders.deps.js';
import { wrongGuesses } from '../../infra/wrong-guesses.js';

/** The orders module's routes: checkout, the banking helpers, the gateways' callbacks, the customer's orders and their downloads. */
export const ordersRoutes: FastifyPluginAsyncTypebox<OrdersDeps> = async (app, deps) => {
  const secret = await checksumSecret(deps.database.db, deps.config.orders.checksumSecret, deps.clock.now());
  const checksum = orderChecksum(secret);
  const guesses = wrongGuesses(deps.database.db, deps.config.linkGuessesPerIp);
  const http = { ...deps, checksum, guesses, urls: paymentUrls(deps, checksum) };
  await app.register(checkoutRoutes, http);
  await app.register(bankRoutes, http);
  await app.register(orderRoutes, http);
  await app.register(orderDownloadsRoutes, http);
  await app.register(giftDownloadsRoutes, { ...http, giftKeys: giftKeys(secret) });
};
