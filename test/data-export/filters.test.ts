import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { exportUser, insertClient, insertSales, insertSessionActions } from './fixtures.js';

let t: TestApp;
let authorization: string;

const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const codes = (response: { json(): unknown }, field: string) =>
  (response.json() as Array<Record<string, string>>).map((item) => item[field]);

const FROM = Date.UTC(2026, 10, 10, 8, 0, 0);
const TO = Date.UTC(2026, 10, 10, 18, 30, 15);
const window = 'createdFrom=2026-11-10%2008:00:00&createdTo=2026-11-10%2018:30:15';

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  const db = t.database.db;
  ({ authorization } = await exportUser(db));
  await insertSales(db, [
    { order: 'BEFORE', createdAt: FROM - 1 },
    { order: 'AT-FROM', createdAt: FROM },
    { order: 'INSIDE', createdAt: FROM + 3_600_000 },
    { order: 'AT-TO', createdAt: TO },
    { order: 'END-OF-TO-SECOND', createdAt: TO + 999 },
    { order: 'AFTER', createdAt: TO + 1000 },
  ]);
  await insertClient(db, 'W-BEFORE', FROM - 1);
  await insertClient(db, 'W-FROM', FROM);
  await insertClient(db, 'W-TO', TO + 999);
  await insertClient(db, 'W-AFTER', TO + 1000);
  await insertSessionActions(db, 3, FROM - 5000);
});

afterAll(() => t.close());

const shopCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('shop')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('createdFrom and createdTo', () => {
  it('sales history: both bounds inclusive, createdTo to the end of its second', async () => {
    const response = await get(`/sales-history?${window}`);
    expect(response.statusCode).toBe(200);
    expect(codes(response, 'order')).toEqual(['AT-FROM', 'INSIDE', 'AT-TO', 'END-OF-TO-SECOND']);
    expect(response.headers['x-pagination-total-count']).toBe('4');
  });

  it('client accounts: the same window on the account creation time', async () => {
    const response = await get(`/client-account?${window}`);
    expect(codes(response, 'client')).toEqual(['W-FROM', 'W-TO']);
  });

  it('one bound alone is open on the other side; + and %20 both stand for the space', async () => {
    expect(codes(await get('/sales-history?createdFrom=2026-11-10+18:30:16'), 'order')).toEqual(['AFTER']);
    expect(codes(await get('/sales-history?createdTo=2026-11-10%2007:59:59'), 'order')).toEqual(['BEFORE']);
  });

  it('the links keep the filter', async () => {
    const response = await get(`/sales-history?${window}&per-page=2`);
    const link = String(response.headers.link);
    expect(link).toContain('createdFrom=2026-11-10+08%3A00%3A00');
    expect(link).toContain('rel="next"');
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
    expect(codes(await t.app.inject({ method: 'GET', url: next, headers: { authorization } }), 'order')).toEqual([
      'AT-TO',
      'END-OF-TO-SECOND',
    ]);
  });

  it('takes a year below 100 as that year (a start "from the beginning"), not as 19xx or a malformed value', async () => {
    for (const from of ['0001-01-01 00:00:00', '0099-12-31 23:59:59', '0000-01-01 00:00:00']) {
      const response = await get(`/sales-history?createdFrom=${encodeURIComponent(from)}`);
      expect(response.statusCode, `${from}: ${response.body}`).toBe(200);
      expect(response.headers['x-pagination-total-count']).toBe('6');
    }
    const early = await get(`/sales-history?createdTo=${encodeURIComponent('0050-06-30 12:00:00')}`);
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json()).toEqual([]);
    expect(expectErrorBody(await get('/sales-history?createdFrom=0050-02-29%2000:00:00'), 400, 'Bad Request').message).toContain(
      'createdFrom',
    );
  });

  it('a window that ends before it starts is empty', async () => {
    const response = await get('/sales-history?createdFrom=2026-11-11%2000:00:00&createdTo=2026-11-10%2000:00:00');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
    expect(response.headers['x-pagination-total-count']).toBe('0');
  });

  it.each([
    ['createdFrom', '2026-11-10'],
    ['createdFrom', '2026-11-10T08:00:00Z'],
    ['createdTo', '2026-13-01 00:00:00'],
    ['createdTo', '2026-02-30 10:00:00'],
    ['createdFrom', '2026-11-10 24:00:00'],
    ['createdTo', '2026-11-10 10:60:00'],
    ['createdFrom', 'yesterday'],
    ['createdTo', ''],
  ])('a malformed %s (%j) is a 400 naming it and showing the format', async (field, value) => {
    for (const path of ['/sales-history', '/client-account']) {
      const body = expectErrorBody(await get(`${path}?${field}=${encodeURIComponent(value)}`), 400, 'Bad Request');
      expect(body.message).toContain(field);
      // The partner's likeliest mistake, an ISO 8601 time, is told what to send as well.
      expect(body.message).toContain('2026-11-22 10:15:00');
    }
  });

  it('collections without a window take no filter: shops are all there', async () => {
    const response = await get('/shop?createdFrom=2030-01-01%2000:00:00');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-pagination-total-count']).toBe(String(await shopCount()));
  });
});
