import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { migrations } from '../../db/migrations/index.js';
import { HttpError } from '../../http/errors.js';
import { errors, success } from '../../http/schemas.js';
import { databasePing } from './site.repository.js';

const HealthSchema = Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') });
const VersionSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  schemaVersion: Type.String({ description: 'Newest database migration this build knows' }),
});

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};
const version = {
  name: packageJson.name,
  version: packageJson.version,
  schemaVersion: Object.keys(migrations).at(-1) ?? '',
};

export interface SiteDeps {
  database: DatabaseHandle;
}

/** Site helpers: health for load balancers and monitors, version for operators. No store needed. */
export const siteRoutes: FastifyPluginAsyncTypebox<SiteDeps> = async (app, { database }) => {
  const ping = databasePing(database);

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
    async (request) => {
      try {
        await ping();
      } catch (err) {
        request.log.error({ err }, 'health check: database unreachable');
        throw new HttpError(503, 'error.serviceUnavailable');
      }
      return { status: 'ok' as const, database: 'ok' as const };
    },
  );

  app.get(
    '/site/version',
    {
      config: { storeScoped: false },
      schema: { tags: ['site'], summary: 'Version of the running service', response: { 200: success(VersionSchema, 'plain') } },
    },
    async () => version,
  );
};
