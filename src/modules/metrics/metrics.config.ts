import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `metrics` section: where /metrics is served, if anywhere. */
export interface MetricsConfig {
  /** METRICS_HOST: the address of the metrics listener. */
  host: string;
  /** METRICS_PORT: a listener of its own serves /metrics (and the main API does not); undefined: none. */
  port: number | undefined;
  /** METRICS_TOKEN: without a listener of its own, the main API serves /metrics to `Authorization: Bearer <token>`. */
  token: string | undefined;
  /** METRICS_AUTH_FAILURES_PER_IP: wrong tokens one client address may send before it gets 429s, unchecked. */
  authFailuresPerIp: RateLimit;
}

/** A token anyone could guess protects nothing. */
const MIN_TOKEN_LENGTH = 16;

export function readMetricsConfig(env: EnvReader): MetricsConfig {
  const port = env.optional('METRICS_PORT') === undefined ? undefined : env.integer('METRICS_PORT', 0, 0, 65535);
  const host = env.read('METRICS_HOST', '127.0.0.1');
  if (port === undefined && env.optional('METRICS_HOST') !== undefined) {
    env.problem('METRICS_HOST needs METRICS_PORT (the metrics listener is started only with a port)');
  }
  const token = env.optional('METRICS_TOKEN');
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    env.problem(`METRICS_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters long`);
  }
  return { host, port, token, authFailuresPerIp: env.rateLimit('METRICS_AUTH_FAILURES_PER_IP', '20/15m') };
}

/** Where /metrics is answered: its own listener, the main API behind a bearer token, or nowhere (a 404). */
export function metricsPlacement(config: MetricsConfig): 'listener' | 'api' | 'off' {
  if (config.port !== undefined) return 'listener';
  return config.token !== undefined ? 'api' : 'off';
}
