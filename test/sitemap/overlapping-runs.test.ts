import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// `sitemap generate` is periodic work (a cron line), and a run over a large catalogue can outlast its
// period or meet an operator's run by hand. Two runs of one store at once wrote the same files and
// each replaced the store's statuses: on PostgreSQL the second's replacement met the first's rows and
// failed on the table's key, a raw database error after its files were written. A run holds the
// store's lease (infra/jobs/lease.ts) instead: the second is told another run is going and writes nothing.

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
let database: DatabaseHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-sitemap-runs-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  drop = scratch?.drop;
  const url = scratch?.url ?? `sqlite:${join(dir, 'sitemap.db')}`;
  env = { DATABASE_URL: url, FILE_STORE_DIR: join(dir, 'files'), PUBLIC_URL: 'https://api.example' };
  database = createDatabase(url);
  await migrateToLatest(database);
  for (let index = 0; index < 3; index += 1) await createProduct(database.db);
  // A first run: the statuses the overlapping runs replace.
  const first = await runCli(['sitemap', 'generate', '--store=WEB'], env);
  expect(first.code, first.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await database?.close();
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts `one`, and on PostgreSQL holds the statuses' table until it waits to write them; then starts
 * `two` and lets go once `two` ended or waits there too. Answers both results.
 */
async function overlapping(one: () => Promise<CliResult>, two: () => Promise<CliResult>): Promise<[CliResult, CliResult]> {
  if (engine !== 'postgres') return Promise.all([one(), two()]);
  let first!: Promise<CliResult>;
  let second!: Promise<CliResult>;
  let secondEnded = false;
  await database.db.transaction().execute(async (trx) => {
    await sql`lock table sitemap_section in share mode`.execute(trx);
    first = one();
    await until('the first run to wait to write its statuses', async () => (await lockWaiters(database.db)) >= 1);
    second = two().finally(() => (secondEnded = true));
    await until('the second run to end or wait too', async () => secondEnded || (await lockWaiters(database.db)) >= 2);
  });
  return Promise.all([first, second]);
}

describe('two `sitemap generate` runs of a store at once', () => {
  it('runs one; the other is told another run is going (exit 1) and writes nothing', async () => {
    const generate = () => runCli(['sitemap', 'generate', '--store=WEB'], env);
    const results = await overlapping(generate, generate);
    const ran = results.filter((result) => result.code === 0);
    const refused = results.filter((result) => result.code !== 0);
    expect(ran, results.map((result) => result.stderr).join('\n')).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.code).toBe(1);
    expect(refused[0]!.stderr).toBe('error: sitemap generate: another run is writing the sitemap of WEB; nothing written\n');
    expect(ran[0]!.stdout).toMatch(/^WEB\tproducts\t3 URLs\t1 files\t\S+\tok$/m);

    // The store's statuses are the run's, and the next run runs.
    const status = await runCli(['sitemap', 'status', '--store=WEB'], env);
    expect(status.stdout).toMatch(/^WEB\tproducts\t3 URLs\t1 files\t\S+\tok$/m);
    expect((await runCli(['sitemap', 'generate', '--store=WEB'], env)).code).toBe(0);
  }, 60_000);
});
