import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import QRCode from 'qrcode';
import { HttpError } from '../../http/errors.js';
import { addressKey } from '../../infra/address-key.js';
import { rateLimited, type RateLimit } from '../../infra/rate-limit.js';
import { tokenBuckets } from '../../infra/token-bucket.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors } from '../../http/schemas.js';
import { CONTENT_MAX_AGE_SECONDS, contentCacheFor } from '../content/index.js';
import type { ContentReadDeps } from './posts.routes.js';
import { qrTarget } from './qr-targets.js';

/** How the SVG is drawn; tests draw the expected URL with the same options and compare. */
export const QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const;

/** The SVG QR code of a URL. */
export function qrSvg(url: string): Promise<string> {
  return QRCode.toString(url, QR_OPTIONS);
}

/**
 * GET /qr-code/:code: an SVG QR code of the front-end URL of a product, shop, post, news item or redirect.
 *
 * Drawing one holds the event loop (~0.5 ms for a product's URL, ~10 ms for a redirect's long old
 * path), so one client address may have QR_CODE_RATE_LIMIT_PER_IP of them drawn (a token bucket per
 * process, as search's: what it protects is this process's event loop; a 429 with Retry-After past
 * it). A shopper scanning a printed code never meets it: the code holds the front-end's URL, and
 * only a page or print that shows the image asks for it (guests' answers are public for minutes).
 */
export const qrCodeRoutes: FastifyPluginAsyncTypebox<ContentReadDeps & { perAddress: RateLimit }> = async (
  app,
  { database, caller: callerOf, perAddress },
) => {
  const buckets = tokenBuckets(perAddress);
  app.get(
    '/qr-code/:code',
    {
      // Before the store, the validation and the read: a refused request costs a map lookup.
      onRequest: async (request) => {
        const wait = buckets.take(addressKey(request.ip), 1, request.actionTime);
        if (wait > 0) throw rateLimited(wait);
      },
      schema: {
        tags: ['QR codes'],
        summary: 'An SVG QR code of the front-end URL of product-, shop-, blog-, news- or redirect-<code>',
        headers: StoreRequestHeaders,
        params: Type.Object({ code: Type.String({ minLength: 3, maxLength: 60, description: '<kind>-<code>, e.g. product-9789949...' }) }),
        response: {
          200: { description: 'image/svg+xml', content: { 'image/svg+xml': { schema: Type.String() } } },
          ...errors(...storeRouteErrors, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const store = requestStore(request);
      const now = request.actionTime;
      const target = await qrTarget(database.db, store.code, request.params.code, now);
      if (target === undefined) throw new HttpError(404, 'blog.qrCodeNotFound', { code: request.params.code.slice(0, 60) });
      // Not kept past the end of a post's, news item's or page's window, when the code is a 404.
      contentCacheFor(reply, caller.kind, Math.min(CONTENT_MAX_AGE_SECONDS, Math.max(0, Math.floor((target.until - now) / 1000))));
      return reply.type('image/svg+xml; charset=utf-8').send(await qrSvg(`${store.frontendUrl}${target.path}`));
    },
  );
};
