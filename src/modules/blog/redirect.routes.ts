import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../http/errors.js';
import { isLinkTarget } from '../../http/link-target.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { HitCounter } from './redirect-hits.js';
import { MAX_PATH_LENGTH, normalisePath, pathSpellings, targetUrl } from './redirect-path.js';
import { activeRedirect } from './redirect.repository.js';
import type { ContentReadDeps } from './posts.routes.js';

export const ExternalUrlSchema = Type.Object(
  {
    path: Type.String({ description: 'The old path as stored (normalised: no fragment, no trailing slash)' }),
    target: Type.String({ description: 'Where it lives now: a path of the front-end or a full URL' }),
    url: Type.String({ description: "The target as a full URL (a path after the store's front-end URL)" }),
    status: Type.Union([Type.Literal(301), Type.Literal(302)], {
      description: 'What the front-end answers: 301 moved for good, 302 for now',
    }),
  },
  { $id: 'ExternalUrl' },
);

/**
 * GET /external-url?path=: where an old URL of the store lives now. Every answer to a GET is counted
 * (in batches, redirect-hits.ts; a HEAD counts nothing; one address's repeats up to caps) and is `no-store`: a cached answer would
 * be a hit nobody counts, and the front-end asks only for URLs it does not know itself. It is never refused for repeats: it is
 * one indexed read, and a shopper following an old link must be sent on.
 */
export const redirectRoutes: FastifyPluginAsyncTypebox<ContentReadDeps & { hits: HitCounter }> = async (app, { database, hits }) => {
  app.get(
    '/external-url',
    {
      schema: {
        tags: ['external URL redirects'],
        summary: 'Where an old URL lives now, and the status the front-end should answer with',
        headers: StoreRequestHeaders,
        querystring: Type.Object({ path: Type.String({ minLength: 1, maxLength: MAX_PATH_LENGTH + 500 }) }),
        response: { 200: success(ExternalUrlSchema), ...errors(...storeRouteErrors, 404) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const path = normalisePath(request.query.path);
      if (path === undefined) throw new HttpError(400, 'blog.badPath');
      const store = requestStore(request);
      const found = await activeRedirect(database.db, store.code, pathSpellings(path));
      // A target stored before the import refused `//host` and `/\host` (http/link-target.ts) is
      // not served: the front-end would send the shopper to that other host.
      if (!found || !isLinkTarget(found.target)) throw new HttpError(404, 'blog.redirectNotFound', { path: path.slice(0, 100) });
      // Fastify answers a HEAD with this handler: a link checker or a prefetch asked, nobody followed the URL.
      if (request.method !== 'HEAD') hits.record(Number(found.id), request.ip, request.actionTime);
      return { path: found.path, target: found.target, url: targetUrl(store.frontendUrl, found.target), status: found.status as 301 | 302 };
    },
  );
};
