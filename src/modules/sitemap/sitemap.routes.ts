import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../http/errors.js';
import { errors, success } from '../../http/schemas.js';
import type { FileStore } from '../../infra/file-store/index.js';
import type { StoreCache } from '../store/index.js';
import { storeFileKey } from './sitemap-files.js';

export interface SitemapDeps {
  fileStore: FileStore;
  stores: StoreCache;
}

const SitemapParams = Type.Object({
  store: Type.String({ minLength: 1, maxLength: 16, description: 'Store code: WEB or WEB2' }),
  file: Type.String({
    minLength: 5,
    maxLength: 80,
    pattern: '^[a-z0-9-]+\\.xml$',
    description: 'sitemap.xml (the index) or a file it lists',
  }),
});

/**
 * The files `sitemap generate` wrote, from the file store (local disk or S3), for search engines.
 * A store that is switched off publishes none: its files of the runs before it stay in the store
 * and are answered as a store's unknown file is (404) until it is switched on again.
 */
export const sitemapRoutes: FastifyPluginAsyncTypebox<SitemapDeps> = async (app, { fileStore, stores }) => {
  app.get(
    '/sitemap/:store/:file',
    {
      config: { storeScoped: false },
      schema: {
        tags: ['site helpers'],
        summary: "A store's sitemap index (sitemap.xml) or one of its sitemap files",
        params: SitemapParams,
        response: {
          200: success(Type.Unsafe<Readable>({ type: 'string', description: 'Sitemap XML' }), 'plain'),
          ...errors(400, 404, 500),
        },
      },
    },
    async (request, reply) => {
      const { store, file } = request.params;
      const key = storeFileKey(store, file);
      const published = (await stores.get(store))?.isActive === true;
      // Opened once, its size from what was opened: a run that replaced or removed the file between
      // a stat and a read answered one version's length with another's bytes (a truncated or
      // overlong XML, a hung connection) or a 500.
      const opened = published ? await fileStore.open(key) : undefined;
      if (opened === undefined) throw new HttpError(404, 'sitemap.notFound', {});
      reply.header('Content-Type', 'application/xml; charset=utf-8');
      reply.header('Content-Length', opened.size);
      reply.header('Cache-Control', 'public, max-age=3600');
      return reply.send(opened.stream);
    },
  );
};
