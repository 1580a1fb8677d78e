import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { bannerCtrPruning, CTR_RETENTION_DAYS } from '../../src/modules/ctr/index.js';
import { PLACEMENTS_PER_ADDRESS } from '../../src/modules/ctr/ctr-recorder.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import { createBanner as createStoreBanner } from '../helpers/banners.js';

keepEachTestInOneRateLimitWindow();

// Banner click-through statistics: the front-end's view and click reports are answered at once
// (202), counted at most CTR_CAP_PER_SESSION_BANNER per session and banner and CTR_CAP_PER_IP per
// address, written in batches, and summed per banner and placement in the operators' report.

let t: TestApp;
let key: string;

// Per hour: the buckets refill a token every 20 minutes, so a slow machine's seconds add none mid-test.
beforeAll(async () => {
  t = await createTestApp({ env: { CTR_CAP_PER_SESSION_BANNER: '3/1h', CTR_CAP_PER_IP: '20/1h' } });
  key = await createApiKey(t.database.db, 'ctr-report', Date.now());
  for (const name of [11, 21, 22, 31, 41, 42, 43, 51, 61, 71]) id[name] = await createBanner('WEB');
  id[12] = await createBanner('WEB2');
  for (let marker = 1; marker <= 20; marker += 1) id[900_000 + marker] = await createBanner('WEB');
});
afterAll(() => t.close());

// The tests' banners by a short name; the report answers their real ids.
const id: Record<number, number> = {};
let banners = 0;
async function createBanner(store: string): Promise<number> {
  banners += 1;
  return createStoreBanner(t.database.db, { code: `CTR-${banners}`, storeCode: store, position: banners });
}

let addresses = 0;
const nextAddress = () => `203.0.113.${++addresses}`;
const report = (event: 'view' | 'click', body: object, options: { session?: string; address?: string; store?: string } = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/ctr/${event}`,
    payload: body,
    remoteAddress: options.address ?? '192.0.2.1',
    headers: { ...(options.session && { 'x-session-id': options.session }), ...(options.store && { store: options.store }) },
  });
const HOUR = 3_600_000;
const period = () => ({ from: new Date(Date.now() - HOUR).toISOString(), to: new Date(Date.now() + HOUR).toISOString() });
const adminReport = (query: Record<string, string>, authorization = `Bearer ${key}`) =>
  t.app.inject({ method: 'GET', url: `/admin/ctr?${new URLSearchParams(query).toString()}`, headers: { authorization } });

interface Line {
  store: string;
  bannerId: number;
  placement: string;
  views: number;
  clicks: number;
  rate: number;
}
const linesOf = async (bannerIds: number[]): Promise<Line[]> => {
  const response = await adminReport({ ...period(), 'per-page': '100' });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Line[]).filter((line) => bannerIds.includes(line.bannerId));
};

/** Waits until the recorder has written a fresh marker banner's view: everything counted before it is written by then. */
let markers = 0;
async function settled(): Promise<void> {
  const banner = 900_000 + ++markers;
  expect((await report('view', { bannerId: id[banner], placement: 'marker' }, { address: nextAddress() })).statusCode).toBe(202);
  await expect.poll(async () => (await linesOf([id[banner]!])).length, { timeout: 5000, interval: 100 }).toBe(1);
}

describe('POST /ctr/view and /ctr/click', () => {
  it("counts a browser's burst as a few: at most 3 views and 3 clicks per session and banner", async () => {
    for (let i = 0; i < 50; i += 1)
      expect((await report('view', { bannerId: id[11], placement: 'header' }, { session: 'burst-1' })).statusCode).toBe(202);
    for (let i = 0; i < 10; i += 1)
      expect((await report('click', { bannerId: id[11], placement: 'header' }, { session: 'burst-1' })).statusCode).toBe(202);
    // Another session, another banner and another placement are counted apart.
    await report('view', { bannerId: id[11], placement: 'header' }, { session: 'burst-2' });
    await report('view', { bannerId: id[11], placement: 'header' }, { session: 'burst-2' });
    await report('click', { bannerId: id[11], placement: 'header' }, { session: 'burst-2' });
    await report('view', { bannerId: id[11], placement: 'main-page' }, { session: 'burst-2' });
    await report('view', { bannerId: id[12], placement: 'main-page' }, { session: 'burst-1', store: 'WEB2' });
    await settled();
    const lines = await linesOf([id[11]!, id[12]!]);
    expect(lines).toEqual([
      { store: 'WEB', bannerId: id[11], placement: 'header', views: 5, clicks: 4, rate: 0.8 },
      { store: 'WEB', bannerId: id[11], placement: 'main-page', views: 1, clicks: 0, rate: 0 },
      { store: 'WEB2', bannerId: id[12], placement: 'main-page', views: 1, clicks: 0, rate: 0 },
    ]);
  });

  it('without a session id counts per client address; one address counts at most CTR_CAP_PER_IP whatever its sessions', async () => {
    const address = nextAddress();
    for (let i = 0; i < 5; i += 1) await report('view', { bannerId: id[21], placement: 'header' }, { address });
    for (let i = 0; i < 30; i += 1) await report('view', { bannerId: id[22], placement: 'header' }, { address, session: `made-up-${i}` });
    await settled();
    const lines = await linesOf([id[21]!, id[22]!]);
    // 3 of banner 21 (one "session": the address), then the address's 20 less those 3 of banner 22.
    expect(lines.map((line) => [line.bannerId, line.views])).toEqual([
      [id[22], 17],
      [id[21], 3],
    ]);
  });

  it('counts one address at a handful of placements an hour: the made-up ones past them make no rows', async () => {
    const address = nextAddress();
    const placements = Array.from({ length: PLACEMENTS_PER_ADDRESS + 4 }, (_, i) => `made-up-${i + 1}`);
    for (const [i, placement] of placements.entries()) {
      expect((await report('view', { bannerId: id[71], placement }, { address, session: `placements-${i}` })).statusCode).toBe(202);
    }
    // One of its own placements still counts, and another address is not crowded out of a new one.
    await report('click', { bannerId: id[71], placement: 'made-up-1' }, { address, session: 'placements-0' });
    await report('view', { bannerId: id[71], placement: 'made-up-12' }, { address: nextAddress() });
    await settled();
    const lines = await linesOf([id[71]!]);
    expect(lines.map((line) => line.placement).sort()).toEqual([...placements.slice(0, PLACEMENTS_PER_ADDRESS), 'made-up-12'].sort());
    expect(lines.find((line) => line.placement === 'made-up-1')).toMatchObject({ views: 1, clicks: 1 });
  });

  it("answers a banner that does not exist, or is another store's, the same and counts nothing", async () => {
    const address = nextAddress();
    expect((await report('view', { bannerId: 987_654_321, placement: 'header' }, { address })).statusCode).toBe(202);
    expect((await report('click', { bannerId: id[12], placement: 'header' }, { address })).statusCode).toBe(202);
    expect((await report('view', { bannerId: id[61], placement: 'header' }, { address })).statusCode).toBe(202);
    await settled();
    expect(await linesOf([987_654_321])).toEqual([]);
    expect((await linesOf([id[12]!])).filter((line) => line.store === 'WEB')).toEqual([]);
    expect(await linesOf([id[61]!])).toEqual([{ store: 'WEB', bannerId: id[61], placement: 'header', views: 1, clicks: 0, rate: 0 }]);
  });

  it('refuses malformed reports with 422 (nothing counted) and never a 500', async () => {
    for (const body of [
      { bannerId: 'abc', placement: 'header' },
      { bannerId: 0, placement: 'header' },
      { bannerId: 1.5, placement: 'header' },
      { bannerId: id[31], placement: 'with space' },
      { bannerId: id[31], placement: '' },
      { bannerId: id[31], placement: 'x'.repeat(41) },
      { bannerId: id[31] },
      {},
    ]) {
      const response = await report('view', body, { address: nextAddress() });
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
    }
    const broken = await t.app.inject({ method: 'POST', url: '/ctr/click', payload: '{', headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    await settled();
    expect(await linesOf([id[31]!])).toEqual([]);
  });
});

describe('GET /admin/ctr', () => {
  it('needs an operator key', async () => {
    expect((await adminReport(period(), '')).statusCode).toBe(401);
    expect((await adminReport(period(), 'Bearer not-a-key')).statusCode).toBe(401);
  });

  it('pages the lines, most viewed first, with the pagination headers', async () => {
    for (const [banner, views] of [
      [41, 3],
      [42, 2],
      [43, 1],
    ] as const) {
      for (let i = 0; i < views; i += 1)
        await report('view', { bannerId: id[banner], placement: 'paged' }, { session: `paged-${i}`, address: nextAddress() });
    }
    await settled();
    const first = await adminReport({ ...period(), store: 'WEB', 'per-page': '1' });
    expect(first.statusCode).toBe(200);
    const total = Number(first.headers['x-pagination-total-count']);
    expect(total).toBeGreaterThanOrEqual(3);
    expect(first.headers['x-pagination-page-count']).toBe(String(total));
    const all: Line[] = [];
    for (let page = 1; page <= total; page += 1)
      all.push(...(await adminReport({ ...period(), store: 'WEB', 'per-page': '1', page: String(page) })).json());
    expect(all.filter((line) => line.placement === 'paged').map((line) => [line.bannerId, line.views])).toEqual([
      [id[41], 3],
      [id[42], 2],
      [id[43], 1],
    ]);
    expect(all.every((line, i) => i === 0 || all[i - 1]!.views >= line.views)).toBe(true);
  });

  it('counts only the hours of the period', async () => {
    await report('view', { bannerId: id[51], placement: 'header' }, { address: nextAddress() });
    await settled();
    const past = { from: new Date(Date.now() - 5 * HOUR).toISOString(), to: new Date(Date.now() - 2 * HOUR).toISOString() };
    const response = await adminReport({ ...past, 'per-page': '100' });
    expect(response.statusCode).toBe(200);
    expect((response.json() as Line[]).filter((line) => line.bannerId === id[51])).toEqual([]);
    expect(await linesOf([id[51]!])).toHaveLength(1);
  });

  it('refuses a bad period or store with a 4xx', async () => {
    const { from, to } = period();
    expect((await adminReport({ from: 'yesterday', to })).statusCode).toBe(400);
    expect((await adminReport({ from })).statusCode).toBe(400);
    expect((await adminReport({ from: to, to: from })).statusCode).toBe(422);
    expect((await adminReport({ from, to, store: 'NOPE' })).statusCode).toBe(422);
    expect((await adminReport({ from, to, page: '0' })).statusCode).toBe(400);
  });

  it('covers at most 366 days in one report (each hour of the range is read)', async () => {
    const day = 86_400_000;
    const to = new Date().toISOString();
    const longest = await adminReport({ from: new Date(Date.now() - 366 * day).toISOString(), to });
    expect(longest.statusCode, longest.body).toBe(200);
    const tooLong = await adminReport({ from: new Date(Date.now() - 367 * day).toISOString(), to });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json()).toEqual([{ field: 'to', message: expect.stringContaining('366') }]);
  });

  it(`refuses a period that starts before the ${CTR_RETENTION_DAYS} days kept (its hours are deleted) with a 422`, async () => {
    const day = 86_400_000;
    const daysAgo = (days: number) => new Date(Date.now() - days * day).toISOString();
    const oldest = await adminReport({ from: daysAgo(CTR_RETENTION_DAYS - 1), to: daysAgo(CTR_RETENTION_DAYS - 30) });
    expect(oldest.statusCode, oldest.body).toBe(200);
    const gone = await adminReport({ from: daysAgo(CTR_RETENTION_DAYS + 1), to: daysAgo(CTR_RETENTION_DAYS - 30) });
    expect(gone.statusCode).toBe(422);
    expect(gone.json()).toEqual([{ field: 'from', message: expect.stringContaining(String(CTR_RETENTION_DAYS)) }]);
  });
});

describe('pruning', () => {
  it(`deletes the hours older than ${CTR_RETENTION_DAYS} days and keeps the rest`, async () => {
    const db = t.database.db;
    const day = 86_400_000;
    const now = Date.now();
    const hourOf = (at: number) => at - (at % HOUR);
    const cutoff = now - CTR_RETENTION_DAYS * day;
    const banner = await createBanner('WEB');
    const hours = {
      yearsAgo: hourOf(now - 5 * 365 * day),
      pastRetention: hourOf(cutoff) - HOUR,
      withinRetention: hourOf(cutoff) + HOUR,
      // The oldest hour of the longest report of the same period a year before: two report spans back.
      yearBeforeLongest: hourOf(now - 2 * 366 * day),
      lastMonth: hourOf(now - 30 * day),
      thisHour: hourOf(now),
    };
    await db
      .insertInto('banner_ctr')
      .values(
        Object.values(hours).map((hour) => ({
          store_code: 'WEB',
          banner_id: banner,
          placement: 'header',
          hour_start: hour,
          views: 5,
          clicks: 1,
        })),
      )
      .execute();
    const left = async () =>
      (await db.selectFrom('banner_ctr').select('hour_start').where('banner_id', '=', banner).orderBy('hour_start').execute()).map((row) =>
        Number(row.hour_start),
      );

    expect(await bannerCtrPruning(db, now)).toBe(2);
    expect(await left()).toEqual([hours.withinRetention, hours.yearBeforeLongest, hours.lastMonth, hours.thisHour]);
    // Run again (the next hour, or another worker at once): nothing more goes.
    expect(await bannerCtrPruning(db, now)).toBe(0);
    // What is kept still adds up in the report.
    const lastYear = await adminReport({
      from: new Date(hours.yearBeforeLongest).toISOString(),
      to: new Date(hours.yearBeforeLongest + 366 * day).toISOString(),
      'per-page': '100',
    });
    expect(lastYear.statusCode, lastYear.body).toBe(200);
    expect((lastYear.json() as Line[]).filter((line) => line.bannerId === banner)).toEqual([
      { store: 'WEB', bannerId: banner, placement: 'header', views: 5, clicks: 1, rate: 0.2 },
    ]);
  });
});

describe('the first hour of a period at the edge of the retention', () => {
  it('is refused (422) when the maintenance has deleted that hour, not answered without its counts', async () => {
    const db = t.database.db;
    const day = 86_400_000;
    const now = Date.now();
    const cutoff = now - CTR_RETENTION_DAYS * day;
    const hourOfCutoff = cutoff - (cutoff % HOUR);
    const banner = await createBanner('WEB');
    await db
      .insertInto('banner_ctr')
      .values({ store_code: 'WEB', banner_id: banner, placement: 'header', hour_start: hourOfCutoff, views: 5, clicks: 1 })
      .execute();
    // The hour started before the cut-off: the hourly maintenance deletes it.
    await bannerCtrPruning(db, now);
    // A period from a second after the cut-off counts from the start of its hour, which is gone.
    const response = await adminReport({ from: new Date(cutoff + 1000).toISOString(), to: new Date(cutoff + 2 * day).toISOString() });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toEqual([{ field: 'from', message: expect.stringContaining(String(CTR_RETENTION_DAYS)) }]);
    // From the next hour on, the period is whole.
    const whole = await adminReport({ from: new Date(hourOfCutoff + HOUR).toISOString(), to: new Date(cutoff + 2 * day).toISOString() });
    expect(whole.statusCode, whole.body).toBe(200);
  });
});
