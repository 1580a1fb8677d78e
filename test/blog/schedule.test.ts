import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { fixedClock } from '../../src/infra/clock.js';
import { createShop } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, migratedScratchDatabase, type TestApp } from '../helpers/test-app.js';
import { importContent } from './helpers.js';

// GET /shop/:code/schedule with the app's clock moved by hand: open now and the next change in
// Europe/Tallinn, across the DST changes (29 March and 25 October 2026) and around midnight.

let config: TestApp;
let database: DatabaseHandle;
let drop: () => Promise<void>;
let app: Awaited<ReturnType<typeof buildApp>>;
const clock = fixedClock(Date.parse('2026-06-10T06:00:00Z'));

beforeAll(async () => {
  config = await createTestApp();
  const scratch = await migratedScratchDatabase();
  drop = scratch.drop;
  database = createDatabase(scratch.url);
  await migrateToLatest(database);
  app = await buildApp({ ...config.config, databaseUrl: scratch.url }, { database, clock });
  await app.ready();
  await createShop(database.db, { code: 'VIRU', name: 'Viru' });
  await createShop(database.db, { code: 'NIGHT', name: 'Öö' });
  const closed = await createShop(database.db, { code: 'GONE', name: 'Suletud' });
  await database.db.updateTable('shop').set({ is_active: false }).where('id', '=', closed).execute();
  const weekdays = [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opens: '10:00', closes: '19:00' }));
  const res = await importContent({ app, database }, 'shop-schedules', [
    {
      shop: 'VIRU',
      weekly: [...weekdays, { weekday: 6, opens: '10:00', closes: '17:00' }],
      exceptions: [
        { date: '2026-12-24', opens: '10:00', closes: '14:00', names: { et: 'Jõululaupäev', en: 'Christmas Eve' } },
        { date: '2026-12-25', closed: true, names: { et: 'Esimene jõulupüha' } },
      ],
    },
    // Open through the night: 20:00-24:00 and 00:00-06:00 every day.
    { shop: 'NIGHT', weekly: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '00:00', closes: '24:00' })) },
  ]);
  expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
});
afterAll(async () => {
  await app.close();
  await database.close();
  await drop();
  await config.close();
});

const schedule = async (at: string, code = 'VIRU', headers: Record<string, string> = {}) => {
  clock.set(Date.parse(at));
  const res = await app.inject({ method: 'GET', url: `/shop/${code}/schedule`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res;
};

describe('GET /shop/:code/schedule', () => {
  it('lists weekdays and upcoming exceptions, translated', async () => {
    const res = await schedule('2026-12-01T08:00:00Z', 'VIRU', { 'x-app-language': 'en' });
    const body = res.json();
    expect(body.timeZone).toBe('Europe/Tallinn');
    expect(body.weekdays[0]).toEqual({ weekday: 1, closed: false, opens: '10:00', closes: '19:00' });
    expect(body.weekdays[6]).toEqual({ weekday: 7, closed: true, opens: null, closes: null });
    expect(body.exceptions).toEqual([
      { date: '2026-12-24', closed: false, opens: '10:00', closes: '14:00', name: 'Christmas Eve' },
      { date: '2026-12-25', closed: true, opens: null, closes: null, name: 'Esimene jõulupüha' },
    ]);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
  });

  it('is open inside the hours in winter time (UTC+2) and says when it closes', async () => {
    // Tuesday 1 December 10:00 UTC = 12:00 in Tallinn.
    expect((await schedule('2026-12-01T10:00:00Z')).json()).toMatchObject({
      openNow: true,
      nextChange: { at: '2026-12-01T17:00:00Z', opens: false },
    });
    // 19:00 local is closing time: closed, opens Wednesday 10:00 local.
    expect((await schedule('2026-12-01T17:00:00Z')).json()).toMatchObject({
      openNow: false,
      nextChange: { at: '2026-12-02T08:00:00Z', opens: true },
    });
  });

  it('uses summer time (UTC+3) in June', async () => {
    // Wednesday 10 June 06:59 UTC = 09:59 local: closed; opens at 07:00 UTC.
    expect((await schedule('2026-06-10T06:59:00Z')).json()).toMatchObject({
      openNow: false,
      nextChange: { at: '2026-06-10T07:00:00Z', opens: true },
    });
    expect((await schedule('2026-06-10T07:00:00Z')).json()).toMatchObject({
      openNow: true,
      nextChange: { at: '2026-06-10T16:00:00Z', opens: false },
    });
  });

  it('crosses the DST changes: Saturday closing and Monday opening across 29 March and 25 October', async () => {
    // Saturday 28 March 16:00 local (UTC+2) -> Monday 30 March 10:00 local, now UTC+3.
    expect((await schedule('2026-03-28T14:00:00Z')).json()).toMatchObject({
      openNow: true,
      nextChange: { at: '2026-03-28T15:00:00Z', opens: false },
    });
    expect((await schedule('2026-03-28T15:00:00Z')).json()).toMatchObject({
      openNow: false,
      nextChange: { at: '2026-03-30T07:00:00Z', opens: true },
    });
    // Saturday 24 October after closing (UTC+3) -> Monday 26 October 10:00, now UTC+2.
    expect((await schedule('2026-10-24T15:00:00Z')).json()).toMatchObject({
      openNow: false,
      nextChange: { at: '2026-10-26T08:00:00Z', opens: true },
    });
  });

  it('takes the local date around midnight, and holidays and short days over the week', async () => {
    // 23:30 UTC on 23 December is 01:30 on Christmas Eve in Tallinn: the short day is today.
    const body = (await schedule('2026-12-23T23:30:00Z')).json();
    expect(body.today).toEqual({ date: '2026-12-24', closed: false, opens: '10:00', closes: '14:00' });
    expect(body.nextChange).toEqual({ at: '2026-12-24T08:00:00Z', opens: true });
    // After the short day: closed on the 25th (a Friday), next opening Saturday the 26th.
    expect((await schedule('2026-12-24T12:00:00Z')).json()).toMatchObject({
      openNow: false,
      nextChange: { at: '2026-12-26T08:00:00Z', opens: true },
    });
  });

  it('has no change at midnight for a shop open through the night', async () => {
    expect((await schedule('2026-06-10T21:30:00Z', 'NIGHT')).json()).toMatchObject({ openNow: true, nextChange: null });
  });

  it("is not kept past midnight in Tallinn, where 'today' and the exceptions from today on change", async () => {
    const maxAge = (res: { headers: Record<string, unknown> }) => Number(/max-age=(\d+)/.exec(String(res.headers['cache-control']))![1]);
    // 23:55 on Christmas Eve in Tallinn (UTC+2): closed until Saturday, but at midnight 'today' is Christmas Day.
    const eve = await schedule('2026-12-24T21:55:00Z');
    expect(eve.json()).toMatchObject({ today: { date: '2026-12-24' }, nextChange: { at: '2026-12-26T08:00:00Z' } });
    expect(maxAge(eve)).toBeLessThanOrEqual(300);
    const christmas = await schedule('2026-12-24T22:00:00Z');
    expect(christmas.json().today).toEqual({ date: '2026-12-25', closed: true, opens: null, closes: null });
    // A shop open through the night has no next change at all: still not past midnight.
    expect(maxAge(await schedule('2026-06-10T20:58:00Z', 'NIGHT'))).toBeLessThanOrEqual(120);
  });

  it('is a 404 for an unknown or inactive shop', async () => {
    clock.set(Date.parse('2026-06-10T06:00:00Z'));
    expectErrorBody(await app.inject({ method: 'GET', url: '/shop/NOPE/schedule' }), 404, 'Not Found');
    expectErrorBody(await app.inject({ method: 'GET', url: '/shop/GONE/schedule' }), 404, 'Not Found');
  });
});
