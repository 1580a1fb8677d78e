import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createBanner } from '../helpers/banners.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Banner views are counted in memory by each API process and written as one upsert of a batch about
// once a second (modules/ctr). Two processes write their batches at the same time whenever both had
// traffic, and their batches share the popular banners' rows of the hour. On PostgreSQL an upsert
// takes each row's lock in the order of its VALUES: two batches naming the same rows in other orders
// deadlock, and the one PostgreSQL ends was a batch of counts lost (logged, never written). Each
// batch names its rows in one order (the key's), so the second waits for the first instead.

const BANNERS = 2;
const env = { CTR_CAP_PER_SESSION_BANNER: '100000/1m', CTR_CAP_PER_IP: '100000/1m' };
let t: TestApp;
let secondDatabase: DatabaseHandle;
let second: App;
let key: string;
const bannerIds: number[] = [];

beforeAll(async () => {
  t = await createTestApp({ env, sqliteFile: true });
  // Another API process on the same database: its own pool and its own recorder.
  secondDatabase = createDatabase(t.config.databaseUrl);
  second = await buildApp(t.config, { database: secondDatabase });
  await second.ready();
  key = await createApiKey(t.database.db, 'ctr-two-processes', Date.now());
  for (let index = 0; index < BANNERS; index += 1) {
    bannerIds.push(await createBanner(t.database.db, { code: `TWO-${index}`, position: index }));
  }
});
afterAll(async () => {
  await second?.close();
  await secondDatabase?.close();
  await t?.close();
});

const view = (app: App, bannerId: number) =>
  app.inject({
    method: 'POST',
    url: '/ctr/view',
    payload: { bannerId, placement: 'HEADER' },
    headers: { 'x-session-id': `session-${bannerId}` },
    remoteAddress: '192.0.2.10',
  });

const totalViews = async () => {
  const row = await t.database.db
    .selectFrom('banner_ctr')
    .select((eb) => eb.fn.sum<number | string>('views').as('views'))
    .executeTakeFirst();
  return Number(row?.views ?? 0);
};

/**
 * Runs `seen` (the views each process reports) with the row of `held`'s hour locked (PostgreSQL) until
 * the second process's batch waits for it and then the first's: the second's batch names `held` first,
 * the first's names it after a row it takes before; then lets go, so the second takes `held` first.
 */
async function flushesMeetingAt(held: number, second: () => Promise<void>, first: () => Promise<void>): Promise<void> {
  if (engine !== 'postgres') {
    await second();
    await first();
    return;
  }
  await t.database.db.transaction().execute(async (trx) => {
    await trx.selectFrom('banner_ctr').select('views').where('banner_id', '=', held).forUpdate().execute();
    await second();
    await until("the second process's batch to wait for the row", async () => (await lockWaiters(t.database.db)) >= 1);
    await first();
    await until("the first process's batch to wait for it too", async () => (await lockWaiters(t.database.db)) >= 2);
  });
}

describe('banner views counted by two API processes at once', () => {
  it('writes every view of both, whatever order each saw the banners in', async () => {
    const [one, two] = bannerIds as [number, number];
    // The hour's rows are there (the banners were seen before), as they are for the popular banners.
    for (const id of [one, two]) expect((await view(t.app, id)).statusCode).toBe(202);
    await expect.poll(totalViews, { timeout: 10_000, interval: 100 }).toBe(2);

    // Each process sees both banners again, in opposite orders, and their batches are written together.
    await flushesMeetingAt(
      two,
      async () => {
        for (const id of [two, one]) expect((await view(second, id)).statusCode).toBe(202);
      },
      async () => {
        for (const id of [one, two]) expect((await view(t.app, id)).statusCode).toBe(202);
      },
    );
    await expect.poll(totalViews, { timeout: 10_000, interval: 100 }).toBe(6);

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const report = await t.app.inject({
      method: 'GET',
      url: `/admin/ctr?${new URLSearchParams({ from, to }).toString()}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(report.statusCode, report.body).toBe(200);
    expect((report.json() as Array<{ bannerId: number; views: number }>).map((line) => line.views)).toEqual([3, 3]);
  }, 60_000);
});
