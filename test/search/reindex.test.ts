import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createEngine } from '../../src/modules/search/engines.js';
import { readState, startRebuild } from '../../src/modules/search/index-maintenance.js';
import { createPerson, createProduct } from '../helpers/catalogue.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { createTestApp, migratedScratchDatabase } from '../helpers/test-app.js';

// `search reindex` as an operator runs it, on a database of its own; and the background upkeep
// of a listening API process, which finishes a rebuild without anyone searching.

let url: string;
let drop: () => Promise<void>;
let handle: DatabaseHandle;
let dir: string | undefined;

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    ({ url, drop } = await migratedScratchDatabase());
  } else {
    dir = mkdtempSync(join(tmpdir(), 'storefront-search-'));
    url = `sqlite:${join(dir, 'search.db')}`;
    drop = async () => {};
  }
  handle = createDatabase(url);
  await migrateToLatest(handle);
  const tammsaare = await createPerson(handle.db, 'A. H. Tammsaare');
  for (let i = 1; i <= 30; i++) await createProduct(handle.db, { name: `Tõde ja õigus ${i}`, persons: [{ id: tammsaare }] });
});
afterAll(async () => {
  await handle.close();
  await drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('storefront search', () => {
  it('reindex rebuilds the whole index and leaves it ready', async () => {
    const result = await runCli(['search', 'reindex'], { DATABASE_URL: url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Search index rebuilt: \d+ entries .* status=ready/);
    expect(result.stderr).toContain('queued');
    expect(await readState(handle.db)).toEqual({ status: 'ready', backlog: 0, queued: false });
    const status = await runCliProcess(['search', 'status'], { DATABASE_URL: url });
    expect(status.stdout.trim()).toBe('status=ready queued=0 products=30');
  });

  it('rejects other subcommands with the usage and status 2', async () => {
    for (const args of [['search'], ['search', 'rebuild'], ['search', 'reindex', '--now']]) {
      const result = await runCli(args, { DATABASE_URL: url });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('search reindex');
    }
  });
});

describe('a listening API process', () => {
  it('folds queued changes in the background and finishes a rebuild by itself', async () => {
    const t = await createTestApp();
    try {
      await createProduct(t.database.db, { name: 'Kevade' });
      await startRebuild(t.database, createEngine(t.database), Date.now());
      expect((await readState(t.database.db)).status).toBe('building');
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const deadline = Date.now() + 15_000;
      while ((await readState(t.database.db)).status !== 'ready' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await readState(t.database.db)).toEqual({ status: 'ready', backlog: 0, queued: false });
      const response = await t.app.inject({ url: '/product/search?q=kevade' });
      expect(response.json().map((card: { name: string }) => card.name)).toEqual(['Kevade']);
    } finally {
      await t.close();
    }
  });
});
