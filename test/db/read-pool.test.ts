import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { budgetCondition, QueryBudgetExceeded, startBudget, withinBudget } from '../../src/db/query-budget.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { startedSince, threadNiceness } from '../helpers/thread-niceness.js';
import { createSearchCatalogue, type SearchCatalogue } from '../search/fixtures.js';

// The read pool (SQLITE_READ_WORKERS): lists, search, facets and exports read on worker threads
// on SQLite, on the normal pool on PostgreSQL. The answers are the ones the main connection
// gives, a request sees its own committed write, and a slow read leaves the event loop free.

let t: TestApp;
let c: SearchCatalogue;
/** A second app on the same database without the pool: everything on the main connection. */
let plain: { app: App; database: DatabaseHandle };
beforeAll(async () => {
  t = await createTestApp({ sqliteFile: true, env: { SQLITE_READ_WORKERS: '2' } });
  c = await createSearchCatalogue(t);
  const database = createDatabase(t.config.databaseUrl, { readWorkers: 0 });
  plain = { app: await buildApp(t.config, { database }), database };
  await plain.app.ready();
});
afterAll(async () => {
  await plain?.app.close();
  await plain?.database.close();
  await t?.close();
});

const answer = async (app: App, url: string) => {
  const response = await app.inject({ url, headers: { store: 'WEB' } });
  return { status: response.statusCode, body: response.json() as unknown, total: response.headers['x-pagination-total-count'] };
};

/** How long a read may run: long enough that a health check sent meanwhile has to finish first. */
const SLOW_MS = 1500;

function slowRead(database: DatabaseHandle) {
  const budget = startBudget(SLOW_MS);
  const started = performance.now();
  const read = withinBudget(database, budget, async (db) => {
    if (engine === 'postgres') return sql`select pg_sleep(${SLOW_MS / 1000 + 1})`.execute(db);
    // A count to a billion: many seconds of CPU, cut at the budget by within_time_budget().
    const within = budgetCondition(database, budget, 'i')!;
    return sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000000000 and ${within}) select count(*) from n`.execute(
      db,
    );
  });
  return read.then(
    () => ({ error: undefined, ms: performance.now() - started }),
    (error: unknown) => ({ error, ms: performance.now() - started }),
  );
}

describe(`the read pool (${engine})`, () => {
  it('is on for a SQLite file and is the normal pool on PostgreSQL', () => {
    if (engine === 'sqlite') expect(t.database.readDb).not.toBe(t.database.db);
    else expect(t.database.readDb).toBe(t.database.db);
    expect(plain.database.readDb).toBe(plain.database.db);
  });

  it.skipIf(engine !== 'sqlite' || process.platform !== 'linux')('reads on a thread at nice 10, below the event loop', async () => {
    const before = threadNiceness();
    const pooled = createDatabase(t.config.databaseUrl, { readWorkers: 1 });
    try {
      await sql`select count(*) from product`.execute(pooled.readDb);
      expect(startedSince(before)).toEqual([10]);
    } finally {
      await pooled.close();
    }
  });

  it('gives the answers the main connection gives', async () => {
    const urls = [
      '/product?per-page=50',
      '/product?per-page=5&page=2&sort=-price',
      `/product?category=${c.category.fiction}&sort=name`,
      `/product/search?q=tõde`,
      `/product/search?q=tõde&sort=-price&per-page=2&page=2`,
      `/product/search?person=${c.person.tammsaare}`,
      '/product-dynamic-filter/filters?q=tõde',
      '/product-dynamic-filter/search-author?term=t',
    ];
    for (const url of urls) {
      const pooled = await answer(t.app, url);
      expect(pooled.status, url).toBe(200);
      expect(pooled, url).toEqual(await answer(plain.app, url));
    }
  });

  it('sees a write that committed just before, in a list and in a search', async () => {
    for (let round = 0; round < 5; round += 1) {
      const name = `Kohe nähtav ${round} ${Date.now()}`;
      const id = await t.database.db.transaction().execute((trx) => createProduct(trx, { name, stores: ['WEB'] }));
      const listed = (await answer(t.app, '/product?per-page=100&sort=newest')).body as Array<{ id: number }>;
      expect(listed.map((card) => card.id)).toContain(id);
      const found = (await answer(t.app, `/product/search?q=${encodeURIComponent(`Kohe nähtav ${round}`)}`)).body as Array<{ id: number }>;
      expect(found.map((card) => card.id)).toEqual([id]);
    }
  });

  it('refuses writes and transactions on the read handle (SQLite)', async () => {
    if (engine !== 'sqlite') return;
    await expect(sql`update web_store set name = name`.execute(t.database.readDb)).rejects.toThrow(/reads only|readonly|query_only/i);
    await expect(t.database.readDb.transaction().execute(async () => 1)).rejects.toThrow(/no transactions/);
  });

  it('ends a read past its time budget with QueryBudgetExceeded', async () => {
    const { error, ms } = await slowRead(t.database);
    expect(error).toBeInstanceOf(QueryBudgetExceeded);
    expect(ms).toBeGreaterThanOrEqual(SLOW_MS - 50);
  });

  it('answers /site/health while a slow read runs', async () => {
    const slow = slowRead(t.database);
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    const health = await t.app.inject({ url: '/site/health' });
    const healthMs = performance.now() - started;
    expect(health.statusCode).toBe(200);
    expect(slowDone).toBe(false);
    expect(healthMs).toBeLessThan(SLOW_MS / 2);
    expect((await slow).error).toBeInstanceOf(QueryBudgetExceeded);
  });
});
