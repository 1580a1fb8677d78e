import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import QRCode from 'qrcode';
import { HttpError } from '../../http/errors.js';
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

/** GET /qr-code/:code: an SVG QR code of the front-end URL of a product, shop, post, news item or redirect. */
export const qrCodeRoutes: FastifyPluginAsyncTypebox<ContentReadDeps> = async (app, { database, caller: callerOf }) => {
  app.get(
    '/qr-code/:code',
    {
      schema: {
        tags: ['QR codes'],
        summary: 'An SVG QR code of the front-end URL of product-, shop-, blog-, news- or redirect-<code>',
        headers: StoreRequestHeaders,
        params: Type.Object({ code: Type.String({ minLength: 3, maxLength: 60, description: '<kind>-<code>, e.g. product-9789949...' }) }),
        response: {
          200: { description: 'image/svg+xml', content: { 'image/svg+xml': { schema: Type.String() } } },
          ...errors(...storeRouteErrors, 401, 404),
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
