import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importNdjson } from '../../src/infra/import/index.js';
import { salesHistoryImporter } from '../../src/modules/data-export/sales-history-import.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, engine, migratedScratchDatabase, type TestApp } from '../helpers/test-app.js';
import { exportUser } from './fixtures.js';

let t: TestApp;
let dir: string;
let authorization: string;
let now = Date.UTC(2026, 10, 20, 9, 0, 0);

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
  dir = mkdtempSync(join(tmpdir(), 'storefront-sales-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  return path;
}

const run = (path: string, reported: string[] = []) =>
  importNdjson(path, salesHistoryImporter(t.database.db, { now: () => now }), (line) => reported.push(line), t.app.log);
const exported = async () =>
  (await t.app.inject({ method: 'GET', url: '/export/sales-history?per-page=1000', headers: { authorization } })).json() as Array<
    Record<string, unknown>
  >;

const webOrder = {
  order: 'WT100',
  client: 'W1001',
  clientType: 'PYSIKLIENT',
  sourceType: 'ONLINE',
  city: 'Tallinn',
  session: 'sess-9',
  deliveryMethod: 'COURIER',
  products: ['P-1', 'P-2'],
};
const shopSale = {
  order: 'SHOP-7',
  client: 'W2002',
  clientType: 'ETTEVOTE',
  sourceType: 'OFFLINE',
  city: 'Tartu',
  shop: 'TRT-1',
  deliveryMethod: 'SHOP',
  createdNav: '2026-11-20T10:59:00+02:00',
  products: ['P-3'],
};

describe('import sales-history', () => {
  it('imports web orders and shop sales; createdAt is when they reached us', async () => {
    const reported: string[] = [];
    const summary = await run(file('first.ndjson', [webOrder, shopSale]), reported);
    expect(reported).toEqual([]);
    expect(summary).toEqual({ lines: 2, outcomes: { created: 2 }, errors: 0 });
    expect(await exported()).toEqual([
      {
        order: 'WT100',
        client: 'W1001',
        clientType: 'PYSIKLIENT',
        createdAt: '2026-11-20T09:00:00Z',
        sourceType: 'ONLINE',
        products: ['P-1', 'P-2'],
        city: 'Tallinn',
        session: 'sess-9',
        deliveryMethod: 'COURIER',
        shop: null,
      },
      {
        order: 'SHOP-7',
        client: 'W2002',
        clientType: 'ETTEVOTE',
        createdAt: '2026-11-20T09:00:00Z',
        createdNav: '2026-11-20T08:59:00Z',
        sourceType: 'OFFLINE',
        products: ['P-3'],
        city: 'Tartu',
        session: null,
        deliveryMethod: 'SHOP',
        shop: 'TRT-1',
      },
    ]);
  });

  it('a later import of the same order fills createdNav and changes nothing else', async () => {
    now += 3_600_000;
    const summary = await run(file('second.ndjson', [{ ...webOrder, city: 'Narva', createdNav: '2026-11-20T09:30:00Z' }]));
    expect(summary.outcomes).toEqual({ 'createdNav updated': 1 });
    const [order] = await exported();
    expect(order).toMatchObject({ order: 'WT100', createdAt: '2026-11-20T09:00:00Z', createdNav: '2026-11-20T09:30:00Z', city: 'Tallinn' });
  });

  it('is idempotent, and a missing createdNav never clears a known one', async () => {
    const before = await exported();
    const summary = await run(
      file('again.ndjson', [{ ...webOrder, createdNav: '2026-11-20T09:30:00Z' }, webOrder, { ...shopSale, createdNav: null }]),
    );
    expect(summary.outcomes).toEqual({ unchanged: 3 });
    expect(await exported()).toEqual(before);
  });

  it('reports bad lines by number and skips them whole', async () => {
    const reported: string[] = [];
    const summary = await run(
      file('bad.ndjson', [
        { ...webOrder, order: 'B1', clientType: 'PERSON' },
        { ...webOrder, order: 'B2', products: [] },
        { ...webOrder, order: 'B3', createdNav: '2026-11-20 09:30:00' },
        { ...webOrder, order: 'B4', extra: true },
        { ...webOrder, order: ' B5' },
        '{"order": ',
        { ...webOrder, order: 'GOOD' },
      ]),
      reported,
    );
    expect(summary).toEqual({ lines: 7, outcomes: { created: 1 }, errors: 6 });
    expect(reported.map((line) => line.split(':')[0])).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 6']);
    expect(reported[2]).toContain('createdNav');
    expect((await exported()).map((order) => order.order)).toEqual(['WT100', 'SHOP-7', 'GOOD']);
  });

  it("words a line's faults as the catalogue kinds do, and stores nothing of the line", async () => {
    const { city: _city, ...withoutCity } = webOrder;
    const before = await exported();
    const reported: string[] = [];
    const summary = await run(
      file('faults.ndjson', [
        { ...webOrder, order: 'F1', city: 'x'.repeat(101) },
        { ...webOrder, order: 'F2', products: 'P-1' },
        { ...withoutCity, order: 'F3' },
        { ...webOrder, order: 'F4', createdNav: '2026-11-20 09:30:00' },
        { ...webOrder, order: 'F5', createdNav: '2026-02-30T09:30:00Z' },
        { ...webOrder, order: 'F6', createdNav: '2026-11-20' },
        { ...webOrder, order: 'F7', client: 'W1\u0000' },
        { ...webOrder, order: 'F8', session: 7 },
        { ...webOrder, order: 'F9', clientType: 'PERSON' },
        { ...webOrder, order: 'F10 ' },
      ]),
      reported,
    );
    expect(summary).toEqual({ lines: 10, outcomes: {}, errors: 10 });
    expect(reported).toEqual([
      'line 1: /city: must be at most 100 characters long',
      'line 2: /products: must be a list',
      'line 3: /city: is required',
      'line 4: /createdNav: "2026-11-20 09:30:00" is not an RFC 3339 date-time (such as 2026-11-22T10:15:00Z)',
      'line 5: /createdNav: "2026-02-30T09:30:00Z" is not an RFC 3339 date-time (such as 2026-11-22T10:15:00Z)',
      'line 6: /createdNav: "2026-11-20" is not an RFC 3339 date-time (such as 2026-11-22T10:15:00Z)',
      'line 7: /client: contains the control character U+0000; control characters (tabs and line breaks too) are not allowed here',
      'line 8: /session: must be a string or null',
      'line 9: /clientType: must be one of PYSIKLIENT, ETTEVOTE',
      'line 10: /order: must not begin or end with white space',
    ]);
    expect(await exported()).toEqual(before);
  });

  it('runs from the command line', async () => {
    const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
    const env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
    try {
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const result = await runCli(['import', 'sales-history', file('cli.ndjson', [webOrder, shopSale, 'nope'])], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('"created":2');
      expect(result.stderr).toContain('line 3: not valid JSON');
    } finally {
      await scratch?.drop();
    }
  });
});
