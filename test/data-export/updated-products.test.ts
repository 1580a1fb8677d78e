import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { T0, exportUser, insertProduct, insertShop, ymdHis } from './fixtures.js';

// /product takes updatedFrom and updatedTo: a partner who read every product once then reads only
// what changed. A product's stock moved by the stock feed is a change (stockCount), as its prices are.

let t: TestApp;
let authorization: string;
let dir: string;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const codes = (response: { json(): unknown }) => (response.json() as Array<{ code: string }>).map((item) => item.code);
const q = (ms: number) => encodeURIComponent(ymdHis(ms));

async function importLines(kind: string, lines: unknown[]) {
  const file = join(dir, `${kind}-${Date.now()}.ndjson`);
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return importKinds[kind]!.create({ db: t.database.db, clock: systemClock, log: t.app.log }, { force: false })(file, () => {});
}

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: '0', DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  dir = mkdtempSync(join(tmpdir(), 'export-updated-'));
  const db = t.database.db;
  ({ authorization } = await exportUser(db));
  await insertShop(db, 'SHOP-U', T0, { et: 'Pood' });
  // The fixture stamps updated_at 5 s after creation: these two last changed at T0 + 5 s.
  await insertProduct(db, { code: 'U-UNCHANGED', createdAt: T0 });
  await insertProduct(db, { code: 'U-STOCK', createdAt: T0, webStock: 0 });
  // Five products changed at the same millisecond, for paging.
  for (const code of ['U-EQ-1', 'U-EQ-2', 'U-EQ-3', 'U-EQ-4', 'U-EQ-5']) await insertProduct(db, { code, createdAt: T0 + 60_000 });
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GET /product with an update window', () => {
  it('finds a product whose stock the feed changed after its creation, and not an unchanged one', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const summary = await importLines('stock', [{ product: 'U-STOCK', shop: 'SHOP-U', quantity: 4 }]);
    expect(summary.outcomes).toEqual({ created: 1 });
    const response = await get(`/product?updatedFrom=${q(before)}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(codes(response)).toEqual(['U-STOCK']);
    const [item] = response.json() as Array<{ stockCount: number; createdAt: string; updatedAt: string }>;
    expect(item!.stockCount).toBe(4);
    expect(Date.parse(item!.updatedAt)).toBeGreaterThanOrEqual(before);
    expect(item!.createdAt).toBe(new Date(T0).toISOString().replace('.000Z', 'Z'));
  });

  it('updatedTo bounds the window, to the end of its second; the items come in update order', async () => {
    const response = await get(`/product?updatedFrom=${q(T0)}&updatedTo=${q(T0 + 5000)}`);
    expect(codes(response)).toEqual(['U-UNCHANGED']);
    expect(response.headers['x-pagination-total-count']).toBe('1');
  });

  it('pages rows changed at the same moment by id: no row skipped or repeated', async () => {
    const window = `updatedFrom=${q(T0 + 65_000)}&updatedTo=${q(T0 + 65_000)}`;
    const pages: string[] = [];
    for (let page = 1; page <= 3; page += 1) pages.push(...codes(await get(`/product?${window}&per-page=2&page=${page}`)));
    expect(pages).toEqual(['U-EQ-1', 'U-EQ-2', 'U-EQ-3', 'U-EQ-4', 'U-EQ-5']);
  });

  it.each([['updatedFrom'], ['updatedTo']])('a malformed %s is a 400 naming it', async (field) => {
    const body = expectErrorBody(await get(`/product?${field}=2026-11-01T12:00:00Z`), 400, 'Bad Request');
    expect(body.message).toContain(field);
    expect(body.message).toContain('2026-11-22 10:15:00');
  });

  it('without an update bound, /product is every product as before', async () => {
    const response = await get('/product');
    expect(codes(response)).toEqual(['U-UNCHANGED', 'U-STOCK', 'U-EQ-1', 'U-EQ-2', 'U-EQ-3', 'U-EQ-4', 'U-EQ-5']);
  });
});
