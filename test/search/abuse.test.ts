import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetCondition, QueryBudgetExceeded, startBudget, withinBudget } from '../../src/db/query-budget.js';
import { createEngine, startRebuild } from '../../src/modules/search/index.js';
import { createProduct, createPerson } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { createBulkProducts } from './bulk-catalogue.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Issue 12, point 6: `GET /product-dynamic-filter/search-author?term=a b c d e f g h&limit=50&priceMax=<varied>`
// took ~128 ms, varied parameters defeated the caches, and four anonymous connections stalled the
// process. Limits per address, one-letter word lists refused, cache keys from known parameters only,
// and a time budget on the search reads.

const DEGENERATE = encodeURIComponent('a b c d e f g h');

describe('per-address limit on search, facets and autocomplete', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { SEARCH_RATE_LIMIT_PER_IP: '10/1h' } });
    await createProduct(t.database.db, { name: 'Kevade' });
  });
  afterAll(() => t.close());

  const paths = [
    '/product/search?q=kevade',
    '/autocomplete?term=kev',
    '/product-dynamic-filter/filters',
    '/product-dynamic-filter/search-author?term=luts',
  ];
  const from = (url: string, remoteAddress: string) => t.app.inject({ url, remoteAddress });

  it('answers 429 with Retry-After once an address has used its share, before any work; other addresses and routes go on', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 16; i += 1) {
      const path = paths[i % paths.length]!;
      statuses.push((await from(`${path}${path.includes('?') ? '&' : '?'}n=${i}`, '198.51.100.1')).statusCode);
    }
    const allowed = statuses.filter((status) => status === 200).length;
    expect(allowed).toBeGreaterThan(0);
    expect(allowed).toBeLessThanOrEqual(10);
    expect(statuses.slice(allowed), statuses.join(' ')).toEqual(Array(16 - allowed).fill(429));
    const limited = await from('/product-dynamic-filter/search-author?term=a&priceMax=3', '198.51.100.1');
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address (an IPv6 one is counted by its /64), and the same address elsewhere in the catalogue.
    expect((await from(paths[0]!, '198.51.100.2')).statusCode).toBe(200);
    expect((await from(paths[0]!, '2001:db8:1:2::1')).statusCode).toBe(200);
    expect((await from('/product?per-page=1', '198.51.100.1')).statusCode).toBe(200);
  });

  it('charges a refused request more than an answered one, and sends the 429 after a pause', async () => {
    // 10 tokens: a 400 takes 1 and then 20, so the next request from the address is already limited.
    expect((await from(`/product/search?q=${DEGENERATE}`, '198.51.100.3')).statusCode).toBe(400);
    const started = Date.now();
    expect((await from('/product/search?q=kevade', '198.51.100.3')).statusCode).toBe(429);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i += 1) statuses.push((await from(`${paths[0]}&n=${i}`, `2001:db8:aa:bb::${(i + 1).toString(16)}`)).statusCode);
    expect(statuses).toContain(429);
  });
});

describe('degenerate queries', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const luts = await createPerson(t.database.db, 'Oskar Luts');
    await createProduct(t.database.db, { name: 'Tõde ja õigus', persons: [{ id: luts }] });
  });
  afterAll(() => t.close());
  const get = (url: string) => t.app.inject({ url, headers: { 'x-app-language': 'en' } });

  it('refuses a text of one-letter words with a 400 that says why, before reading anything', async () => {
    for (const url of [
      `/product/search?q=${DEGENERATE}`,
      `/product-dynamic-filter/filters?q=${DEGENERATE}`,
      `/product-dynamic-filter/search-author?term=${DEGENERATE}&limit=50&priceMax=7.31`,
      `/product-dynamic-filter/search-publisher?q=${DEGENERATE}&term=luts`,
      '/product/search?q=a:b:c',
      '/product/search?q=%5Ba-z%5D',
    ]) {
      const answer = await get(url);
      expectErrorBody(answer, 400, 'Bad Request');
      expect(answer.json().message, url).toContain('one-letter');
    }
  });

  it('answers autocomplete for one-letter words with no suggestions (it is asked while typing)', async () => {
    const answer = await get(`/autocomplete?term=${DEGENERATE}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ products: [], persons: [], publishers: [], series: [], categories: [] });
  });

  it('drops one-letter words beside longer ones, and keeps a lone letter as a word', async () => {
    const names = async (q: string) =>
      (await get(`/product/search?q=${encodeURIComponent(q)}`)).json().map((c: { name: string }) => c.name);
    expect(await names('a tõde b c ')).toEqual(['Tõde ja õigus']);
    expect((await get('/product/search?q=a')).statusCode).toBe(200);
    const authors = await get(`/product-dynamic-filter/search-author?term=${encodeURIComponent('o luts')}`);
    expect(authors.json().map((a: { name: string }) => a.name)).toEqual(['Oskar Luts']);
  });

  it('refuses absurd limits', async () => {
    for (const url of [
      '/product-dynamic-filter/search-author?term=luts&limit=1000',
      '/product-dynamic-filter/filters?facetLimit=1000',
      '/autocomplete?term=luts&productLimit=1000',
      '/product/search?page=100000000',
    ])
      expectErrorBody(await get(url), 400, 'Bad Request');
  });
});

describe('cache keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000' } });
    const luts = await createPerson(t.database.db, 'Oskar Luts');
    await createProduct(t.database.db, { name: 'Kevade', persons: [{ id: luts }] });
    await createProduct(t.database.db, { name: 'Suvi', persons: [{ id: luts }] });
  });
  afterAll(() => t.close());
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });

  it('ignore unknown parameters and unknown languages: a cache buster is still served from the cache', async () => {
    const urls = ['/product/search?q=kevade&per-page=1', '/autocomplete?term=kev', '/product-dynamic-filter/search-author?term=luts'];
    const first = [];
    for (const url of urls) {
      const answer = await get(`${url}&_=1`);
      expect(answer.statusCode, url).toBe(200);
      first.push(answer);
    }
    // From now on every search that reaches the index is a 503: only a kept answer can be a 200.
    await startRebuild(t.database, createEngine(t.database), Date.now());
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the process trusts the index state it read for 1 s
    for (const [index, url] of urls.entries()) {
      for (const variant of [`${url}&_=2`, `${url}&_=3&utm_source=mail&colour=red`]) {
        const answer = await get(variant, { 'x-app-language': 'xx' });
        expect(answer.statusCode, variant).toBe(200);
        expect(answer.body).toBe(first[index]!.body);
      }
    }
    // A known parameter is another answer: it reaches the index, which is being rebuilt.
    expect((await get('/product/search?q=suvi&_=2')).statusCode).toBe(503);
    expect((await get('/product/search?q=kevade&per-page=1&priceMax=3')).statusCode).toBe(503);
    // The kept Link header names the parameters of the request it answers.
    const replayed = await get('/product/search?q=kevade&per-page=1&_=4');
    expect(String(replayed.headers.link)).toContain('_=4');
    expect(String(replayed.headers.link)).not.toContain('_=1');
  });
});

describe('time budget of the search reads', () => {
  it('aborts a long read past the deadline on the engine itself', async () => {
    const t = await createTestApp();
    try {
      const started = Date.now();
      const long =
        engine === 'sqlite'
          ? (db: Parameters<Parameters<typeof withinBudget>[2]>[0], budget: ReturnType<typeof startBudget>) =>
              sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < 1000000000 and ${budgetCondition(t.database, budget, 'x')!})
                select count(*) as n from c`.execute(db)
          : (db: Parameters<Parameters<typeof withinBudget>[2]>[0]) => sql`select pg_sleep(10)`.execute(db);
      const budget = startBudget(100);
      await expect(withinBudget(t.database, budget, (db) => long(db, budget))).rejects.toBeInstanceOf(QueryBudgetExceeded);
      expect(Date.now() - started).toBeLessThan(2000);
      // On SQLite the read held the event loop that long, and the address is charged for it.
      if (engine === 'sqlite') expect(budget.blockedMs).toBeGreaterThanOrEqual(90);
      // Within the budget a read answers as usual, and a spent budget refuses the next read before it starts.
      const quick = startBudget(5000);
      expect((await withinBudget(t.database, quick, (db) => sql<{ n: number }>`select 1 as n`.execute(db))).rows[0]!.n).toBe(1);
      await expect(withinBudget(t.database, budget, (db) => sql`select 1`.execute(db))).rejects.toBeInstanceOf(QueryBudgetExceeded);
    } finally {
      await t.close();
    }
  });

  it('answers 503 (not kept by any cache) when a search needs more than SEARCH_TIME_BUDGET_MS', async () => {
    const t = await createTestApp({ env: { SEARCH_TIME_BUDGET_MS: '1' } });
    try {
      await createBulkProducts(t, 4000);
      for (const url of [
        '/product-dynamic-filter/filters?priceMax=40',
        '/product/search?q=bulk&sort=price',
        '/product-dynamic-filter/search-author?term=luts&priceMax=20',
      ]) {
        const answer = await t.app.inject({ url, headers: { 'x-app-language': 'en' } });
        expectErrorBody(answer, 503, 'Service Unavailable');
        expect(answer.json().message, url).toContain('too long');
        expect(answer.headers['cache-control']).toBe('no-store');
      }
    } finally {
      await t.close();
    }
  }, 60_000);
});
