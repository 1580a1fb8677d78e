import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { gdprCommand } from '../../src/modules/gdpr/index.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertSales, ymdHis } from './fixtures.js';

// /sales-history takes updatedFrom and updatedTo: an analyst who read a row when it arrived learns
// of the back office's createdNav reported later, and of an erasure's blanking of the city and session.

let t: TestApp;
let authorization: string;
let dir: string;
let erased: TestCustomer;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const orders = (response: { json(): unknown }) => (response.json() as Array<{ order: string }>).map((item) => item.order);
const q = (ms: number) => encodeURIComponent(ymdHis(ms));
const nextSecond = async () => {
  const start = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await new Promise((resolve) => setTimeout(resolve, start - Date.now()));
  return start;
};

async function importSales(lines: unknown[]) {
  const file = join(dir, `sales-${Date.now()}.ndjson`);
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return importKinds['sales-history']!.create({ db: t.database.db, clock: systemClock, log: t.app.log }, { force: false })(file, () => {});
}

const sale = (order: string, createdNav: string | null) => ({
  order,
  client: 'W70000001',
  clientType: 'PYSIKLIENT',
  sourceType: 'OFFLINE',
  city: 'Tartu',
  deliveryMethod: 'SHOP',
  shop: 'SHOP-1',
  createdNav,
  products: ['P-1'],
});

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: '0', DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  dir = mkdtempSync(join(tmpdir(), 'export-sales-updated-'));
  const db = t.database.db;
  ({ authorization } = await exportUser(db));
  erased = await createCustomer(db);
  await insertSales(db, [
    { order: 'NAV-LATER', createdAt: T0, createdNav: null },
    { order: 'UNCHANGED', createdAt: T0 + 1000 },
    { order: 'ERASED', createdAt: T0 + 2000, client: erased.clientCode, session: 'sess-erased' },
  ]);
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GET /sales-history with an update window', () => {
  it('finds a row whose createdNav the back office reported later, not an unchanged one', async () => {
    const before = await nextSecond();
    expect((await importSales([sale('NAV-LATER', '2026-11-01T11:00:00Z')])).outcomes).toEqual({ 'createdNav updated': 1 });
    const response = await get(`/sales-history?updatedFrom=${q(before)}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual([expect.objectContaining({ order: 'NAV-LATER', createdNav: '2026-11-01T11:00:00Z' })]);
    // The same line again changes nothing.
    const after = await nextSecond();
    expect((await importSales([sale('NAV-LATER', '2026-11-01T11:00:00Z')])).outcomes).toEqual({ unchanged: 1 });
    expect(orders(await get(`/sales-history?updatedFrom=${q(after)}`))).toEqual([]);
  });

  it('finds the rows an erasure blanked (`gdpr erase`)', async () => {
    const before = await nextSecond();
    await gdprCommand({ db: t.database.db, clock: systemClock }, ['erase', await emailOf(t.database.db, erased)], () => {});
    const response = await get(`/sales-history?updatedFrom=${q(before)}`);
    expect(response.json()).toEqual([expect.objectContaining({ order: 'ERASED', city: '[erased]', session: null })]);
  });

  it('a new row is in the update window of its creation; updatedTo bounds the window', async () => {
    expect(orders(await get(`/sales-history?updatedFrom=${q(T0)}&updatedTo=${q(T0 + 1000)}`))).toEqual(['UNCHANGED']);
  });

  it.each([['updatedFrom'], ['updatedTo']])('a malformed %s is a 400 naming it', async (field) => {
    const body = expectErrorBody(await get(`/sales-history?${field}=yesterday`), 400, 'Bad Request');
    expect(body.message).toContain(field);
  });
});
