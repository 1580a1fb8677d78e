import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { registerConditionalGet } from '../../http/http-cache.js';
import { callerResolver } from '../catalogue/index.js';
import type { BlogSection } from './blog.config.js';
import { contentAdminRoutes } from './content-admin.routes.js';
import { postRoutes } from './posts.routes.js';
import { qrCodeRoutes } from './qr-code.routes.js';
import { createHitCounter, HIT_FLUSH_INTERVAL_MS } from './redirect-hits.js';
import { redirectRoutes } from './redirect.routes.js';
import { scheduleRoutes } from './schedule.routes.js';

export interface BlogDeps {
  database: DatabaseHandle;
  config: BlogSection;
  /** How often counted redirect hits are written; tests read them through the admin, which flushes. */
  redirectHitFlushMs?: number;
}

/**
 * The module's routes: blog and news, shop schedules, redirects, QR codes, and the operators'
 * single edits of these kinds. Cacheable answers get an ETag and answer conditional GETs with 304.
 */
export const blogRoutes: FastifyPluginAsyncTypebox<BlogDeps> = async (app, { database, config, redirectHitFlushMs }) => {
  registerConditionalGet(app);
  const deps = { database, caller: callerResolver(database) };
  const hits = createHitCounter(
    database.db,
    config,
    (error) => app.log.error({ err: error }, 'redirect hits not written'),
    redirectHitFlushMs ?? HIT_FLUSH_INTERVAL_MS,
  );
  app.addHook('onClose', async () => hits.flush());
  await app.register(postRoutes, deps);
  await app.register(scheduleRoutes, deps);
  await app.register(redirectRoutes, { ...deps, hits });
  await app.register(qrCodeRoutes, { ...deps, perAddress: config.qrCodesPerAddress });
  await app.register(contentAdminRoutes, { database, hits });
};
