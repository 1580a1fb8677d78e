import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamStats } from '../../src/modules/data-export/data-export.service.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { T0, exportUser, insertSaleSeries, insertSales } from './fixtures.js';
import { expectItems, salesHistorySpec, sessionActionSpec, without } from './spec-schemas.js';

let t: TestApp;
let authorization: string;
const NDJSON = 'application/x-ndjson';
const ACTIONS = 60_000;

const stream = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization, accept: NDJSON, ...headers } });
const lines = (body: string) =>
  body
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  t = await createTestApp();
  ({ authorization } = await exportUser(t.database.db));
  await insertSaleSeries(t.database.db, 2345);
  // Long rows, many of them: ~15 MB, more than the socket buffers hold, so a client that does not
  // read holds the stream up.
  const actions = Array.from({ length: ACTIONS }, (_, i) => ({
    session_id: `s-${'x'.repeat(90)}-${i}`,
    store_code: 'WEB',
    product_code: `P-${'y'.repeat(30)}-${i}`,
    client_code: i % 2 === 0 ? null : `W${i}`,
    action_type: 'VIEW' as const,
    created_at: T0 + i,
  }));
  for (let i = 0; i < ACTIONS; i += 1000)
    await t.database.db
      .insertInto('session_action')
      .values(actions.slice(i, i + 1000))
      .execute();
});

afterAll(() => t.close());

describe('NDJSON streaming', () => {
  it('streams every matching row, one JSON object a line, in the order of the pages', async () => {
    const response = await stream('/sales-history?page=3&per-page=5');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers).not.toHaveProperty('x-pagination-total-count');
    expect(response.body.endsWith('\n')).toBe(true);
    const items = lines(response.body);
    expect(items).toHaveLength(2345);
    expectItems(without(salesHistorySpec, 'createdNav'), items);
    const paged = [];
    for (let page = 1; page <= 3; page += 1) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/export/sales-history?per-page=1000&page=${page}`,
        headers: { authorization },
      });
      paged.push(...response.json());
    }
    expect(items).toEqual(paged);
  });

  it('applies the window; an empty result is an empty body', async () => {
    const some = lines((await stream('/sales-history?createdFrom=2026-11-01%2012:00:10&createdTo=2026-11-01%2012:00:12')).body);
    expect(some.map((item) => item.order)).toEqual(['WT00011', 'WT00012', 'WT00013']);
    const none = await stream('/sales-history?createdFrom=2031-01-01%2000:00:00');
    expect(none.statusCode).toBe(200);
    expect(none.body).toBe('');
  });

  it('any media range of NDJSON with q above 0 selects it; q=0 does not', async () => {
    const chosen = await stream('/shop', { accept: 'application/json;q=0.5, application/x-ndjson' });
    expect(chosen.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const refused = await stream('/shop', { accept: 'application/x-ndjson;q=0, application/json' });
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
  });

  it('bad parameters and credentials are answered before the stream, in JSON', async () => {
    const bad = await stream('/sales-history?createdFrom=nope');
    expectErrorBody(bad, 400, 'Bad Request');
    const anonymous = await t.app.inject({ method: 'GET', url: '/export/session', headers: { accept: NDJSON } });
    expectErrorBody(anonymous, 401, 'Unauthorized');
  });

  it('waits for a slow client (backpressure) and stops reading when it goes away', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const before = { ...streamStats };
    const req = httpRequest({ host: '127.0.0.1', port, path: '/export/session', headers: { authorization, accept: NDJSON } });
    req.on('error', () => {});
    // The client takes the response but reads nothing: the socket fills and the stream must wait.
    await new Promise<void>((resolve) => {
      req.on('response', (res) => {
        res.pause();
        resolve();
      });
      req.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(streamStats.active).toBe(before.active + 1);
    expect(streamStats.completed).toBe(before.completed);
    req.destroy();
    await expect.poll(() => streamStats.aborted, { timeout: 5000 }).toBe(before.aborted + 1);
    expect(streamStats.active).toBe(before.active);
    expect(streamStats.completed).toBe(before.completed);
  });

  it('ends with an {"error": ...} line when a read fails midway', async () => {
    // A created_nav beyond the last representable date makes the row of the second batch fail.
    await insertSales(t.database.db, [{ order: 'BROKEN', createdAt: T0 + 1500 * 1000 + 1, createdNav: 9e15 }]);
    const response = await stream('/sales-history');
    expect(response.statusCode).toBe(200);
    const items = lines(response.body);
    expect(items).toHaveLength(1001);
    expectItems(without(salesHistorySpec, 'createdNav'), items.slice(0, 1000));
    expect(items.at(-1)).toEqual({ error: { name: 'Internal Server Error', message: expect.any(String), code: 0, status: 500 } });
    await t.database.db.deleteFrom('sales_history').where('order_code', '=', 'BROKEN').execute();
  });

  it('session actions stream in the spec shape', async () => {
    const items = lines((await stream('/session')).body);
    expect(items).toHaveLength(ACTIONS);
    expectItems(sessionActionSpec, items.slice(0, 2000));
  });
});
