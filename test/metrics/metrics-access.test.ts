import { afterAll, describe, expect, it } from 'vitest';
import { buildMetricsApp } from '../../src/app.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sample } from './metrics-text.js';

// Who may read /metrics: nobody without METRICS_PORT or METRICS_TOKEN; with a token only, the API
// behind `Authorization: Bearer`; with a port, only the listener of its own.

const TOKEN = 'metrics-token-0123456789abcdef';
const opened: TestApp[] = [];
afterAll(async () => {
  for (const t of opened) await t.close();
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await createTestApp({ env });
  opened.push(t);
  return t;
}

const getMetrics = (t: TestApp, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/metrics', headers });

describe('GET /metrics', () => {
  it('is a 404 in the documented shape when neither METRICS_PORT nor METRICS_TOKEN is set', async () => {
    const t = await app();
    expectErrorBody(await getMetrics(t), 404, 'Not Found');
    expectErrorBody(await getMetrics(t, { authorization: `Bearer ${TOKEN}` }), 404, 'Not Found');
  }, 60_000);

  it('with METRICS_TOKEN answers 401 without the token or with a wrong one, and the metrics with the right one', async () => {
    const t = await app({ METRICS_TOKEN: TOKEN });
    const wrong = ['', 'Bearer', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN, `Bearer ${TOKEN} x`];
    for (const authorization of [undefined, ...wrong]) {
      const response = await getMetrics(t, authorization === undefined ? {} : { authorization });
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['www-authenticate'], String(authorization)).toBe('Bearer');
      expect(response.body).not.toContain('storefront_');
    }
    const response = await getMetrics(t, { authorization: `Bearer ${TOKEN}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(sample(response.body, 'storefront_database_up')).toBe(1);
    // The scheme's name is case-insensitive (RFC 7235).
    expect((await getMetrics(t, { authorization: `bearer ${TOKEN}` })).statusCode).toBe(200);
  }, 60_000);

  it('with METRICS_PORT is served only on its own listener (the API answers 404), without a token unless one is set', async () => {
    const t = await app({ METRICS_PORT: '0', METRICS_TOKEN: TOKEN });
    expectErrorBody(await getMetrics(t, { authorization: `Bearer ${TOKEN}` }), 404, 'Not Found');
    const listener = await buildMetricsApp(t.config, { database: t.database });
    try {
      const address = await listener.listen({ port: 0, host: '127.0.0.1' });
      expect((await fetch(`${address}/metrics`)).status).toBe(401);
      const ok = await fetch(`${address}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(sample(await ok.text(), 'storefront_database_up')).toBe(1);
      // Nothing else is served there.
      const other = await fetch(`${address}/site/health`);
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ name: 'Not Found', status: 404 });
    } finally {
      await listener.close();
    }

    const open = await app({ METRICS_PORT: '0' });
    const plain = await buildMetricsApp(open.config, { database: open.database });
    try {
      const address = await plain.listen({ port: 0, host: '127.0.0.1' });
      const response = await fetch(`${address}/metrics`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('# TYPE storefront_http_request_duration_seconds histogram');
    } finally {
      await plain.close();
    }
  }, 60_000);
});
