import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { fixedClock } from '../../src/infra/clock.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, migratedScratchDatabase, type TestApp } from '../helpers/test-app.js';
import { add, call, type Who } from './helpers.js';
import { importLines } from './import-helpers.js';

// The express courier's cut-off through HTTP: GET /basket/delivery-methods estimates express
// orders before 12:00 Europe/Tallinn for the same day and later ones for the next, by the app's
// clock (summer time UTC+3, winter time UTC+2, and the days the clocks change). The courier next to
// it has no cut-off.

let config: TestApp;
let database: DatabaseHandle;
let drop: () => Promise<void>;
let app: Awaited<ReturnType<typeof buildApp>>;
const clock = fixedClock(Date.parse('2026-06-10T06:00:00Z'));
let book = 0;

beforeAll(async () => {
  // Only for its configuration: this file's app runs on its own database with a clock it moves.
  config = await createTestApp();
  const scratch = await migratedScratchDatabase();
  drop = scratch.drop;
  database = createDatabase(scratch.url);
  await migrateToLatest(database);
  app = await buildApp({ ...config.config, databaseUrl: scratch.url }, { database, clock });
  await app.ready();
  book = await createProduct(database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER', price: 20 });
  const methods = await importLines({ app, database } as TestApp, 'delivery-methods', [
    {
      code: 'EXPRESS',
      kind: 'EXPRESS_COURIER',
      names: { et: 'Kiirkuller' },
      prices: [{ store: 'WEB', price: 9.9 }],
      daysMin: 0,
      daysMax: 0,
      position: 1,
    },
    {
      code: 'COURIER',
      kind: 'COURIER',
      names: { et: 'Kuller' },
      prices: [{ store: 'WEB', price: 5.9 }],
      daysMin: 1,
      daysMax: 2,
      position: 2,
    },
  ]);
  expect(methods.json()).toMatchObject({ outcomes: { created: 2 }, errorCount: 0 });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  await drop?.();
  await config?.close();
});

/** The estimates of a guest basket's methods at the given moment of the app's clock. */
async function estimatesAt(iso: string): Promise<Record<string, { from: string; to: string }>> {
  clock.set(Date.parse(iso));
  const basket = await add({ app, database } as TestApp, {}, book, 1);
  const who: Who = { token: basket.basketToken! };
  const response = await call({ app, database } as TestApp, 'GET', '/basket/delivery-methods', who);
  expect(response.statusCode, response.body).toBe(200);
  const methods = response.json() as Array<{ code: string; estimate: { from: string; to: string } }>;
  return Object.fromEntries(methods.map((method) => [method.code, method.estimate]));
}

describe('the express courier in GET /basket/delivery-methods', () => {
  it('is estimated for today before 12:00 in Tallinn and for tomorrow from 12:00 (summer time, UTC+3)', async () => {
    expect((await estimatesAt('2026-06-10T08:59:59Z')).EXPRESS).toEqual({ from: '2026-06-10', to: '2026-06-10' });
    const noon = await estimatesAt('2026-06-10T09:00:00Z');
    expect(noon.EXPRESS).toEqual({ from: '2026-06-11', to: '2026-06-11' });
    // 11:00 UTC is past noon in Tallinn although before noon in UTC.
    expect((await estimatesAt('2026-06-10T11:00:00Z')).EXPRESS).toEqual({ from: '2026-06-11', to: '2026-06-11' });
  });

  it('uses winter time (UTC+2) in January', async () => {
    expect((await estimatesAt('2026-01-12T09:59:00Z')).EXPRESS).toEqual({ from: '2026-01-12', to: '2026-01-12' });
    expect((await estimatesAt('2026-01-12T10:00:00Z')).EXPRESS).toEqual({ from: '2026-01-13', to: '2026-01-13' });
  });

  it('takes the noon of the clock change days by the offset at noon, not at midnight', async () => {
    // 2026-03-29: clocks go from 03:00 (UTC+2) to 04:00 (UTC+3), so noon is 09:00 UTC.
    expect((await estimatesAt('2026-03-29T08:59:00Z')).EXPRESS).toEqual({ from: '2026-03-29', to: '2026-03-29' });
    expect((await estimatesAt('2026-03-29T09:00:00Z')).EXPRESS).toEqual({ from: '2026-03-30', to: '2026-03-30' });
    // 2026-10-25: clocks go from 04:00 (UTC+3) back to 03:00 (UTC+2), so noon is 10:00 UTC.
    expect((await estimatesAt('2026-10-25T09:59:00Z')).EXPRESS).toEqual({ from: '2026-10-25', to: '2026-10-25' });
    expect((await estimatesAt('2026-10-25T10:00:00Z')).EXPRESS).toEqual({ from: '2026-10-26', to: '2026-10-26' });
  });

  it('takes the date in Tallinn: just after midnight there it is already the next day', async () => {
    // 22:30 UTC on 10 June is 01:30 on 11 June in Tallinn: before the cut-off of the 11th.
    expect((await estimatesAt('2026-06-10T22:30:00Z')).EXPRESS).toEqual({ from: '2026-06-11', to: '2026-06-11' });
  });

  it('leaves the ordinary courier without a cut-off: its estimate moves only with the date', async () => {
    const before = await estimatesAt('2026-06-10T08:59:00Z');
    const after = await estimatesAt('2026-06-10T09:01:00Z');
    expect(after.COURIER).toEqual(before.COURIER);
    expect(before.COURIER!.from > '2026-06-10').toBe(true);
  });
});
