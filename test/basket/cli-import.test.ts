import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createProduct, setStoreDiscounts } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, engine, migratedScratchDatabase, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, type Who } from './helpers.js';

// `storefront import parcel-machines | delivery-methods | discount-codes` run (src/cli.ts) on
// a database; then an app on that database lists the imported methods with their machine in
// GET /basket/delivery-methods and takes the imported code in POST /basket/add-discount.

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
let configApp: TestApp | undefined;
let database: DatabaseHandle | undefined;
let app: Awaited<ReturnType<typeof buildApp>> | undefined;

const ndjson = (lines: object[]) => lines.map((line) => JSON.stringify(line)).join('\n') + '\n';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-basket-cli-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  drop = scratch?.drop;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  const migrated = await runCli(['migrate'], env);
  expect(migrated.code, migrated.stderr).toBe(0);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  await configApp?.close();
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

async function importFile(kind: string, lines: object[]) {
  const file = join(dir, `${kind}.ndjson`);
  writeFileSync(file, ndjson(lines));
  return runCli(['import', kind, file], env);
}

describe('storefront import of the basket kinds', () => {
  it('imports parcel machines, delivery methods and discount codes from files, exit 0', async () => {
    const machines = await importFile('parcel-machines', [
      { carrier: 'OMNIVA', code: '3001', name: 'Lõunakeskus', city: 'Tartu', address: 'Ringtee 75' },
      { carrier: 'OMNIVA', code: '3002', name: 'Kristiine', city: 'Tallinn', address: 'Endla 45' },
    ]);
    expect(machines.code, machines.stderr).toBe(0);
    expect(machines.stdout).toContain('2 lines: {"created":2}');
    const methods = await importFile('delivery-methods', [
      {
        code: 'OMNIVA',
        kind: 'PARCEL_MACHINE',
        carrier: 'OMNIVA',
        names: { et: 'Omniva pakiautomaat' },
        prices: [{ store: 'WEB', price: 2.99, freeOver: 40 }],
        daysMin: 1,
        daysMax: 3,
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
    expect(methods.code, methods.stderr).toBe(0);
    expect(methods.stdout).toContain('2 lines: {"created":2}');
    const codes = await importFile('discount-codes', [
      { code: 'cli10', percent: 10 },
      { code: 'CLIFIVE', amount: 5, minBasket: 30 },
    ]);
    expect(codes.code, codes.stderr).toBe(0);
    expect(codes.stdout).toContain('2 lines: {"created":2}');
    // The same file again changes nothing; a bad line is reported and exits 1.
    const again = await importFile('discount-codes', [{ code: 'cli10', percent: 10 }, { code: 'NOTHING' }]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('2 lines: {"unchanged":1}, 1 bad');
    expect(again.stderr).toMatch(/^line 2: /m);
  });

  it('the imported rows show in GET /basket/delivery-methods and apply as a code', async () => {
    // The test app only lends its configuration; the app under test runs on the CLI's database.
    configApp = await createTestApp();
    database = createDatabase(env.DATABASE_URL!);
    await migrateToLatest(database);
    app = await buildApp({ ...configApp.config, databaseUrl: env.DATABASE_URL! }, { database });
    await app.ready();
    const t = { app, database } as TestApp;
    await setStoreDiscounts(database.db, 'WEB', 0, 0);
    const book = await createProduct(database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER', price: 20 });
    const basket = await add(t, {}, book, 1);
    const who: Who = { token: basket.basketToken! };

    const listed = await call(t, 'GET', '/basket/delivery-methods', who);
    expect(listed.statusCode, listed.body).toBe(200);
    const methods = listed.json() as Array<{
      code: string;
      price: number;
      freeOver: number | null;
      parcelMachines: Array<{ name: string }>;
    }>;
    expect(methods.map((method) => method.code)).toEqual(['OMNIVA', 'COURIER']);
    expect([methods[0]!.price, methods[0]!.freeOver]).toEqual([2.99, 40]);
    expect(methods[0]!.parcelMachines.map((machine) => machine.name).sort()).toEqual(['Kristiine', 'Lõunakeskus']);
    expect(methods[1]!.price).toBe(5.9);

    const coded = basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: 'CLI10' }));
    expect(coded.discounts).toEqual([{ code: 'CLI10', amount: 2, applied: true, reason: null }]);
    expect(coded.total).toBe(18);
    const belowMinimum = basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: 'clifive' }));
    expect(belowMinimum.discounts[0]).toMatchObject({ code: 'CLIFIVE', applied: false, reason: { code: 'BELOW_MINIMUM' } });
  });
});
