import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { readState, searchIndexReadiness } from '../../src/modules/search/index.js';
import { runCli } from '../helpers/cli.js';
import { migratedScratchDatabase } from '../helpers/test-app.js';

// Issue 18, point 5: `import` folds the search changes it queued before it exits, so a first
// import run with no API process is searchable at once (and never leaves the index building).

let url: string;
let drop: () => Promise<void>;
let handle: DatabaseHandle;
const dir = mkdtempSync(join(tmpdir(), 'storefront-import-folds-'));

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) ({ url, drop } = await migratedScratchDatabase());
  else {
    url = `sqlite:${join(dir, 'shop.db')}`;
    drop = async () => {};
  }
  handle = createDatabase(url);
  await migrateToLatest(handle);
});
afterAll(async () => {
  await handle.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

function ndjson(name: string, lines: object[]): string {
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}

describe('import', () => {
  it('folds the search changes of a first import before it exits', async () => {
    const persons = ndjson(
      'persons',
      Array.from({ length: 50 }, (_, i) => ({ code: `A${i}`, name: `Autor Nimi${i}` })),
    );
    const products = ndjson(
      'products',
      Array.from({ length: 700 }, (_, i) => ({
        code: `P${i}`,
        type: 'BOOK',
        name: `Esimene raamat ${i}`,
        stores: ['WEB'],
        shopPrice: 9.99,
        vatRate: 9,
        availability: 'AVAILABLE',
        persons: [{ code: `A${i % 50}`, role: 'AUTHOR' }],
      })),
    );
    for (const [kind, file] of [
      ['persons', persons],
      ['products', products],
    ] as const) {
      const result = await runCli(['import', kind, file], { DATABASE_URL: url });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/search index: \d+ changes folded in [\d.]+ s/);
    }
    expect(await readState(handle.db)).toEqual({ status: 'ready', backlog: 0, queued: false });
    expect(await searchIndexReadiness(handle, Date.now())).toEqual({ ready: true, queued: 0 });
    const status = await runCli(['search', 'status'], { DATABASE_URL: url });
    expect(status.stdout.trim()).toBe('status=ready queued=0 products=700');
    const documents = handle.engine === 'postgres' ? 'search_document' : 'search_product_fts';
    const indexed = await handle.db
      .selectFrom(documents as 'search_product')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(indexed.n)).toBe(700);
  }, 120_000);
});
