import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { migrations } from '../../db/migrations/index.js';
import { HttpError } from '../../http/errors.js';
import type { Lifecycle } from '../../infra/lifecycle.js';
import { readPackageInfo } from '../../infra/package-info.js';
import { errors, success } from '../../http/schemas.js';
import { translate, type Language } from '../../i18n/index.js';
import { notReadyReasons, type NotReadyReason } from './readiness.js';

const HealthSchema = Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') });
const ReadySchema = Type.Object({
  status: Type.Literal('ready'),
  database: Type.Literal('ok'),
  migrations: Type.Literal('ok'),
  search: Type.Literal('ok'),
});
const VersionSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  schemaVersion: Type.String({ description: 'Newest database migration this build knows' }),
});

/** The site helpers answer the state of this process now: nothing may keep them. */
const NO_STORE = { 'Cache-Control': 'no-store' };

const packageJson = readPackageInfo();
const version = {
  name: packageJson.name,
  version: packageJson.version,
  // By name, as Kysely runs them: branches merged in any order append older names after newer ones.
  schemaVersion: Object.keys(migrations).sort().at(-1) ?? '',
};

export interface SiteDeps {
  database: DatabaseHandle;
  /** A stopping process is not ready: the load balancer takes it out of the pool while it drains. */
  lifecycle?: Lifecycle;
}

/** Site helpers: health for load balancers and monitors, version for operators. No store needed. */
export const siteRoutes: FastifyPluginAsyncTypebox<SiteDeps> = async (app, { database, lifecycle }) => {
  app.get(
    '/site/health',
    {
      config: { storeScoped: false },
      schema: {
        tags: ['site'],
        summary: 'Service health: answers 200 when the database is reachable',
        response: { 200: success(HealthSchema, 'plain'), ...errors(503) },
      },
    },
    async (request, reply) => {
      // A health answer kept by a CDN or proxy (one that caches what says nothing, CloudFront's default
      // TTL) would show the service up through an outage, or down after it: never stored. One constant header.
      reply.header('Cache-Control', 'no-store');
      try {
        await database.ping();
      } catch (err) {
        request.log.error({ err }, 'health check: database unreachable');
        throw new HttpError(503, 'error.serviceUnavailable', {}, NO_STORE);
      }
      return { status: 'ok' as const, database: 'ok' as const };
    },
  );

  app.get(
    '/site/ready',
    {
      config: { storeScoped: false },
      schema: {
        tags: ['site'],
        summary: 'Readiness: the database answers, no migration is pending and the search index is ready',
        description:
          'For load balancers and orchestrators deciding whether to send traffic; /site/health is the cheap liveness check. ' +
          'Answers 503 with every reason in the message while the database does not answer, the schema needs migrations, ' +
          'or the search index is being rebuilt or far behind (a first import), and from SIGTERM on while the process drains (SHUTDOWN_DRAIN_MS).',
        response: { 200: success(ReadySchema, 'plain'), ...errors(503) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const reasons: NotReadyReason[] = lifecycle?.stopping ? [{ check: 'stopping' }] : await notReadyReasons(database, request.actionTime);
      if (reasons.length > 0) {
        request.log.warn({ reasons }, 'not ready');
        const text = reasons.map((reason) => reasonText(request.language, reason)).join('; ');
        throw new HttpError(503, 'site.notReady', { reasons: text }, NO_STORE);
      }
      return { status: 'ready' as const, database: 'ok' as const, migrations: 'ok' as const, search: 'ok' as const };
    },
  );

  app.get(
    '/site/version',
    {
      config: { storeScoped: false },
      schema: { tags: ['site'], summary: 'Version of the running service', response: { 200: success(VersionSchema, 'plain') } },
    },
    // Kept by a cache, the version would name the build before a deploy: no-store, as health.
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return version;
    },
  );
};

/** Long lists of pending migrations are cut: the first few name the gap well enough. */
const SHOWN_MIGRATIONS = 3;

function reasonText(language: Language, reason: NotReadyReason): string {
  switch (reason.check) {
    case 'database':
      return translate(language, 'site.notReady.database');
    case 'migrations': {
      const shown = reason.pending.slice(0, SHOWN_MIGRATIONS).join(', ');
      const more = reason.pending.length > SHOWN_MIGRATIONS ? ` +${reason.pending.length - SHOWN_MIGRATIONS}` : '';
      return translate(language, 'site.notReady.migrations', { names: shown + more });
    }
    case 'search':
      return translate(language, 'site.notReady.search', { state: reason.state });
    case 'stopping':
      return translate(language, 'site.notReady.stopping');
  }
}
