import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetricsApp } from '../../src/app.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sample } from './metrics-text.js';

// A scrape whose database reads fail still answers, with storefront_database_up 0: that is how an
// outage shows on the dashboards. The limit on wrong METRICS_TOKENs is counted in that database:
// an outage must not turn the right token's scrape into a 500 (the target down, every figure lost).

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestApp;
let broken: DatabaseHandle;
beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: TOKEN, METRICS_PORT: '0' } });
  // PostgreSQL: nothing listens there; SQLite: a database without the schema. Either way every statement fails.
  broken = process.env.TEST_DATABASE_URL
    ? createDatabase('postgres://postgres@127.0.0.1:1/none', { connectTimeoutMs: 500 })
    : createDatabase('sqlite::memory:');
}, 60_000);
afterAll(async () => {
  await broken?.close();
  await t?.close();
});

describe('GET /metrics with the database down', () => {
  it('answers the right token with storefront_database_up 0, and a wrong one with a 401', async () => {
    const listener = await buildMetricsApp(t.config, { database: broken });
    try {
      const get = (authorization: string) =>
        listener.inject({ method: 'GET', url: '/metrics', headers: { authorization }, remoteAddress: '192.0.2.10' });
      const ok = await get(`Bearer ${TOKEN}`);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(sample(ok.body, 'storefront_database_up')).toBe(0);
      expect((await get('Bearer wrong-0123456789abcdef')).statusCode).toBe(401);
    } finally {
      await listener.close();
    }
  }, 60_000);
});
