import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetricsApp } from '../../src/app.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// /metrics behind METRICS_TOKEN is reachable by anyone who reaches the API: wrong tokens from one
// address are limited (METRICS_AUTH_FAILURES_PER_IP), as export logins and password guesses are.

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: TOKEN, METRICS_AUTH_FAILURES_PER_IP: '3/15m' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const getMetrics = (authorization: string | undefined, remoteAddress: string) =>
  t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { 'x-app-language': 'en', ...(authorization === undefined ? {} : { authorization }) },
    remoteAddress,
  });

describe('GET /metrics, wrong tokens', () => {
  it('answers 429 with Retry-After past the limit of one address, the right token too, and not to another address', async () => {
    for (let i = 0; i < 3; i++) expect((await getMetrics(`Bearer guess-${i}-0123456789abcdef`, '203.0.113.7')).statusCode).toBe(401);
    const refused = await getMetrics('Bearer guess-3-0123456789abcdef', '203.0.113.7');
    expectErrorBody(refused, 429, 'Too Many Requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    // Past the limit a guess is not checked at all, so the right one cannot be told from a wrong one.
    expect((await getMetrics(`Bearer ${TOKEN}`, '203.0.113.7')).statusCode).toBe(429);
    // Another address (the scraper) is not affected, and a right token counts nothing.
    for (let i = 0; i < 5; i++) expect((await getMetrics(`Bearer ${TOKEN}`, '198.51.100.2')).statusCode).toBe(200);
    expect((await getMetrics('Bearer wrong-0123456789abcdef', '198.51.100.2')).statusCode).toBe(401);
  }, 60_000);

  it('limits the metrics listener the same way', async () => {
    const listener = await buildMetricsApp(t.config, { database: t.database });
    try {
      const get = (authorization: string) =>
        listener.inject({ method: 'GET', url: '/metrics', headers: { authorization }, remoteAddress: '192.0.2.9' });
      for (let i = 0; i < 3; i++) expect((await get(`Bearer nope-${i}`)).statusCode).toBe(401);
      const refused = await get('Bearer nope-3');
      expectErrorBody(refused, 429, 'Too Many Requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await listener.close();
    }
  }, 60_000);
});
