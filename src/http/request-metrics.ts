import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { HistogramSeries } from '../infra/metrics/fast-histogram.js';
import { httpRequestSeconds } from '../infra/metrics/process-metrics.js';

/** The label of requests no route matched: their paths are the caller's, and would make a series each. */
const UNMATCHED = '(unmatched)';

/**
 * Counts and times every answered request by method, route pattern and status
 * (storefront_http_request_duration_seconds). Registered only when /metrics is served. Kept to a
 * string key and a map look-up per request: the time is Fastify's own (`reply.elapsedTime`), the
 * hook is a callback (no promise), and the series of a key is made once.
 */
export function registerRequestMetrics(app: FastifyInstance): void {
  const seriesByKey = new Map<string, HistogramSeries>();
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const status = reply.statusCode;
    const key = `${request.method} ${status} ${route}`;
    let series = seriesByKey.get(key);
    if (series === undefined) {
      series = httpRequestSeconds.series(request.method, route, String(status));
      seriesByKey.set(key, series);
    }
    series.observe(reply.elapsedTime / 1000);
    done();
  });
}
