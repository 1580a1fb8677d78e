import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import type { DatabaseHandle } from '../../db/database.js';
import { errorBody } from '../../http/errors.js';
import { translate, type Language } from '../../i18n/index.js';
import { addressKey } from '../../infra/address-key.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { processMetrics, startNodeMetrics } from '../../infra/metrics/process-metrics.js';
import { countedHits, countHit, refundHit, type RateLimit } from '../../infra/rate-limit.js';
import { databaseGauges } from './database-gauges.js';

export interface MetricsDeps {
  database: DatabaseHandle;
  clock?: Clock;
  /** Required as `Authorization: Bearer <token>` when given. */
  token: string | undefined;
  /** Wrong tokens one client address may send (METRICS_AUTH_FAILURES_PER_IP). */
  authFailuresPerIp: RateLimit;
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

  const tokenMatches = (header: string | undefined): boolean => {
    const match = typeof header === 'string' ? /^Bearer (\S+)$/i.exec(header.trim()) : null;
    return match !== null && timingSafeEqual(sha256(match[1]!), expected!);
  };

  // Wrong tokens are counted per client address (by addressKey, as every per-address limit) in the
  // database, like export logins: each attempt is counted before its check and a right token takes
  // its count back, so guesses sent at once cannot all pass a count read before any of them was
  // made. Past the limit the address gets a 429 without a check, so a right guess cannot show.
  const failureKey = (ip: string) => `metrics:fail:${addressKey(ip)}`;
  const now = () => (deps.clock ?? systemClock).now();

  /** 'ok', 'wrong' (a 401), or the seconds the address must wait (a 429, nothing checked). */
  const authorize = async (request: FastifyRequest): Promise<'ok' | 'wrong' | number> => {
    if (expected === undefined) return 'ok';
    // No credentials at all guess nothing (a probe, a scraper not yet configured): a 401, not counted.
    if (request.headers.authorization === undefined) return 'wrong';
    const limit = deps.authFailuresPerIp;
    const key = failureKey(request.ip);
    const at = now();
    let hits: number;
    try {
      hits = await countHit(deps.database.db, key, limit, at);
    } catch {
      // The database down (or not answering): the scrape must still answer, with
      // storefront_database_up 0, as that is how the outage shows. The token is still checked;
      // only the count of guesses is lost while the database is.
      return tokenMatches(request.headers.authorization) ? 'ok' : 'wrong';
    }
    if (hits > limit.max) {
      // Refused ones are not counted: the address is let in again when the window ends.
      await refundHit(deps.database.db, key, limit, at);
      return (await countedHits(deps.database.db, key, limit, at)).secondsLeft;
    }
    if (!tokenMatches(request.headers.authorization)) return 'wrong';
    // A refund lost to a database that failed since costs the scraper one count of its window, no more.
    await refundHit(deps.database.db, key, limit, at).catch(() => undefined);
    return 'ok';
  };

  app.get('/metrics', { config: { storeScoped: false }, schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Cache-Control', 'no-store');
    const outcome = await authorize(request);
    // Answered here, not thrown: the metrics listener has no error handler of the API's.
    const language = request.language ?? deps.defaultLanguage;
    if (typeof outcome === 'number') {
      const message = translate(language, 'error.tooManyRequests', { seconds: outcome });
      return reply.code(429).header('Retry-After', String(outcome)).send(errorBody(429, message));
    }
    if (outcome === 'wrong') {
      const message = translate(language, 'auth.unauthorized');
      return reply.code(401).header('WWW-Authenticate', 'Bearer').send(errorBody(401, message));
    }
    await gauges.refresh();
    const text = (await processMetrics.metrics()) + (await gauges.registry.metrics());
    return reply.type(Registry.PROMETHEUS_CONTENT_TYPE).send(text);
  });
};
