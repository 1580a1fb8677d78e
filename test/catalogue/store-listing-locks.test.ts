import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// The store lists (store_listing, issue 19) keep no row that writers of different products share: a
// kept total per store and audience made two transactions that each change a product of one store and
// then one of the other, in opposite orders, wait for each other on the totals, and PostgreSQL aborted
// one (40P01). Supplier feeds and the back office's import run at once, one transaction per line and
// 500 deactivations a transaction, and nothing retries a deadlock. SQLite runs one write transaction
// at a time: only PostgreSQL is asked.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/**
 * Two transactions, each writing `first` then, once the other has written its own first, `second`. A
 * transaction's first write may wait for the other's commit (every price or visibility change bumps the
 * one 'price' version row, migration 2026_11_27_1300): the barrier gives up after a second, so that wait
 * is no hang, and a deadlock still meets PostgreSQL's detector (deadlock_timeout, 1 s).
 */
async function interleaved(steps: Array<[first: (trx: Db) => Promise<unknown>, second: (trx: Db) => Promise<unknown>]>): Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const barrier = new Promise<void>((resolve) => (release = resolve));
  const meet = async () => {
    if (++arrived === steps.length) release();
    await Promise.race([barrier, new Promise((resolve) => setTimeout(resolve, 1000))]);
  };
  const results = await Promise.allSettled(
    steps.map(([first, second]) =>
      t.database.db.transaction().execute(async (trx) => {
        await first(trx);
        await meet();
        await second(trx);
      }),
    ),
  );
  expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'committed'))).toEqual(
    steps.map(() => 'committed'),
  );
}

async function totalOf(store: string): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: '/product?per-page=1', headers: { store } });
  expect(res.statusCode, res.body).toBe(200);
  return Number(res.headers['x-pagination-total-count']);
}

const hide = (ids: number[]) => (trx: Db) => trx.updateTable('product').set({ hidden_web: true }).where('id', 'in', ids).execute();
const release = (ids: number[]) => (trx: Db) =>
  trx
    .updateTable('product')
    .set({ released_at: Date.UTC(2024, 0, 1) })
    .where('id', 'in', ids)
    .execute();
const deactivate = (ids: number[]) => (trx: Db) => trx.updateTable('product').set({ is_active: false }).where('id', 'in', ids).execute();

it.runIf(engine === 'postgres')(
  'a WEB then WEB2 product edit and a WEB2 then WEB one, interleaved, both commit and the totals follow',
  async () => {
    const make = (stores: string[]) => createProduct(t.database.db, { stores });
    const [web1, web2, other1, other2] = [await make(['WEB']), await make(['WEB']), await make(['WEB2']), await make(['WEB2'])];
    const before = { web: await totalOf('WEB'), other: await totalOf('WEB2') };
    await interleaved([
      [hide([web1]), hide([other1])],
      [hide([other2]), hide([web2])],
    ]);
    expect({ web: await totalOf('WEB'), other: await totalOf('WEB2') }).toEqual({ web: before.web - 2, other: before.other - 2 });
  },
);

it.runIf(engine === 'postgres')('two bulk deactivations of both stores, in opposite orders, both commit', async () => {
  const make = async (stores: string[]) => Promise.all(Array.from({ length: 20 }, () => createProduct(t.database.db, { stores })));
  const [web1, web2, other1, other2] = [await make(['WEB']), await make(['WEB']), await make(['WEB2']), await make(['WEB2'])];
  const before = { web: await totalOf('WEB'), other: await totalOf('WEB2') };
  await interleaved([
    [deactivate(web1), deactivate(other1)],
    [deactivate(other2), deactivate(web2)],
  ]);
  expect({ web: await totalOf('WEB'), other: await totalOf('WEB2') }).toEqual({ web: before.web - 40, other: before.other - 40 });
});

it.runIf(engine === 'postgres')(
  'release dates (no price bump to wait for) changed in opposite orders of the stores both commit',
  async () => {
    const make = (stores: string[]) => createProduct(t.database.db, { stores, releasedAt: null });
    const [web1, web2, other1, other2] = [await make(['WEB']), await make(['WEB']), await make(['WEB2']), await make(['WEB2'])];
    await interleaved([
      [release([web1]), release([other1])],
      [release([other2]), release([web2])],
    ]);
    const first = await t.app.inject({ method: 'GET', url: '/product?per-page=100', headers: { store: 'WEB2' } });
    expect(first.json().map((item: { id: number }) => item.id)).toEqual(expect.arrayContaining([other1, other2]));
  },
);
