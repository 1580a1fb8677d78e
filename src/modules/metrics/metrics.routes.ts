import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import type { DatabaseHandle } from '../../db/database.js';
import { errorBody } from '../../http/errors.js';
import { translate, type Language } from '../../i18n/index.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { processMetrics, startNodeMetrics } from '../../infra/metrics/process-metrics.js';
import { databaseGauges } from './database-gauges.js';

export interface MetricsDeps {
  database: DatabaseHandle;
  clock?: Clock;
  /** Required as `Authorization: Bearer <token>` when given. */
  token: string | undefined;
  /** The language of the 401 when the request has none of its own (the metrics listener has no request context). */
  defaultLanguage: Language;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics in Prometheus text format: the process's counters (infra/metrics) and the gauges
 * read from the database at scrape time. Hidden from the API documents: it is for the operator's
 * monitoring, on its own listener or behind its own token.
 */
export const metricsRoutes: FastifyPluginAsync<MetricsDeps> = async (app, deps) => {
  startNodeMetrics();
  const gauges = databaseGauges(deps.database, deps.clock ?? systemClock, app.log);
  // Compared as SHA-256 digests: equal lengths, so timingSafeEqual compares in constant time and
  // the token's length does not show either.
  const expected = deps.token === undefined ? undefined : sha256(deps.token);

  const authorized = (request: FastifyRequest): boolean => {
    if (expected === undefined) return true;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (\S+)$/i.exec(header.trim()) : null;
    return match !== null && timingSafeEqual(sha256(match[1]!), expected);
  };

  app.get('/metrics', { config: { storeScoped: false }, schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Cache-Control', 'no-store');
    if (!authorized(request)) {
      const message = translate(request.language ?? deps.defaultLanguage, 'auth.unauthorized');
      return reply.code(401).header('WWW-Authenticate', 'Bearer').send(errorBody(401, message));
    }
    await gauges.refresh();
    const text = (await processMetrics.metrics()) + (await gauges.registry.metrics());
    return reply.type(Registry.PROMETHEUS_CONTENT_TYPE).send(text);
  });
};
