import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliProcess } from '../helpers/cli.js';

// A mistyped SQLite path (`sqlite:/srv/shop/storfront.db`) made a new file, migrated it and answered
// as if the shop had no data: two default stores, no jobs, an import into a shop nobody serves, all
// with exit 0. A command that reads or changes a shop refuses a file that is not there, as a bad
// setting (exit 1, the message alone) and makes nothing; the commands whose point is a new database
// still make one (`migrate`, `seed --demo`, `restore`; `serve --seed-demo`, what npm start runs on a
// fresh machine: test/payments/test-gateway-serve.test.ts). SQLite's alone, on either engine's run.

const dir = mkdtempSync(join(tmpdir(), 'storefront-missing-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const publishers = join(dir, 'publishers.ndjson');
writeFileSync(publishers, `${JSON.stringify({ code: 'PUB-1', name: 'Varrak' })}\n`);

const refusal = (file: string) =>
  `Invalid configuration:\n  - DATABASE_URL (sqlite:${file}) names the SQLite file ${file}, which does not exist, and this command makes no database: ` +
  'check DATABASE_URL, or make the database first with storefront migrate (storefront seed --demo for one with demo data)\n';

/** What is in the test's folder besides the NDJSON file: what a command made. */
const made = () => readdirSync(dir).filter((name) => name !== 'publishers.ndjson');

describe('a one-shot command on a SQLite file that is not there', () => {
  it.each([
    [['store', 'list']],
    [['store', 'lock', 'WEB']],
    [['jobs', 'list']],
    [['import', 'publishers', publishers]],
    [['api-key', 'add', 'ops']],
    [['export-user', 'list']],
    [['supplier', 'list']],
    [['webhook', 'list']],
    [['event-feed', 'list']],
    [['wholesale', 'list']],
    [['business', 'list']],
    [['search', 'status']],
    [['newsletter', 'export']],
    [['gdpr', 'erase', 'someone@example.ee', '--dry-run']],
    [['subscription', 'stats']],
    [['contact', 'show', 'WEB']],
    [['product-file', 'remove', 'P-1', 'PDF']],
    [['sitemap', 'status']],
  ])('%j exits 1 naming the file and what to do, and makes neither the file nor its folder', async (args) => {
    const file = join(dir, 'no-such-folder', 'storfront.db');
    expect(await runCli(args, { DATABASE_URL: `sqlite:${file}` })).toEqual({ code: 1, stdout: '', stderr: refusal(file) });
    const beside = join(dir, 'storfront.db');
    expect(await runCli(args, { DATABASE_URL: `sqlite:${beside}` })).toEqual({ code: 1, stdout: '', stderr: refusal(beside) });
    expect(made()).toEqual([]);
  });

  it('names a relative path in full: it is from the folder the command runs in', async () => {
    const file = join(dir, 'shop.db');
    const result = await runCli(['store', 'list'], { DATABASE_URL: `sqlite:${relative(process.cwd(), file)}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`names the SQLite file ${file}, which does not exist`);
    expect(made()).toEqual([]);
  });

  // `touch shop.db` (or a copy that never finished) is no database either: SQLite makes a new one in
  // an empty file as in a missing one, and the command answered on an empty shop with exit 0.
  it('refuses an empty file as well, and leaves it empty; `migrate` makes the database in it', async () => {
    const file = join(dir, 'empty.db');
    writeFileSync(file, '');
    expect(await runCli(['store', 'list'], { DATABASE_URL: `sqlite:${file}` })).toEqual({
      code: 1,
      stdout: '',
      stderr: refusal(file).replace('which does not exist', 'which is empty'),
    });
    expect(statSync(file).size).toBe(0);
    expect((await runCli(['migrate'], { DATABASE_URL: `sqlite:${file}` })).code).toBe(0);
    expect((await runCli(['store', 'list'], { DATABASE_URL: `sqlite:${file}` })).code).toBe(0);
    rmSync(file);
  });

  // Started before serve or migrate made the database, or on a mistyped path, a worker would wait on
  // an empty file of its own for jobs that never come: it refuses, and its supervisor starts it again.
  it('`worker` refuses as well, and makes nothing', async () => {
    const file = join(dir, 'no-such-folder', 'storfront.db');
    expect(await runCliProcess(['worker'], { DATABASE_URL: `sqlite:${file}` }, { killAfterMs: 30_000 })).toEqual({
      code: 1,
      stdout: '',
      stderr: refusal(file),
    });
    expect(made()).toEqual([]);
  }, 60_000);

  // It answered as a command line it could not run (exit 2, the usage under "no database at ..."),
  // where every other command refuses the setting: exit 1, the variable and the file named in full.
  it('`backup` refuses as well, exit 1, and writes no backup', async () => {
    const file = join(dir, 'storfront.db');
    const backup = join(dir, 'shop-backup.db');
    expect(await runCliProcess(['backup', backup], { DATABASE_URL: `sqlite:${file}` })).toEqual({
      code: 1,
      stdout: '',
      stderr: `Invalid configuration:\n  - DATABASE_URL (sqlite:${file}) names the SQLite file ${file}, which does not exist, so there is nothing to back up: check DATABASE_URL\n`,
    });
    expect(made()).toEqual([]);
  });
});

describe('the commands that make a database', () => {
  it('`migrate` makes the file and its folder, and the other commands then run on it', async () => {
    const file = join(dir, 'new-folder', 'shop.db');
    const env = { DATABASE_URL: `sqlite:${file}` };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/^Applied: /);
    const listed = await runCli(['store', 'list'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^WEB\t/m);
  });

  it('`restore` puts a backup where no database was yet', async () => {
    const backup = join(dir, 'shop-backup.db');
    expect((await runCli(['backup', backup], { DATABASE_URL: `sqlite:${join(dir, 'new-folder', 'shop.db')}` })).code).toBe(0);
    const file = join(dir, 'restored.db');
    const restored = await runCli(['restore', backup], { DATABASE_URL: `sqlite:${file}` });
    expect(restored.code, restored.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect((await runCli(['store', 'list'], { DATABASE_URL: `sqlite:${file}` })).code).toBe(0);
  });

  it('`seed --demo` makes a shop with demo data where there was none', async () => {
    const file = join(dir, 'demo-folder', 'demo.db');
    const seeded = await runCli(['seed', '--demo'], { DATABASE_URL: `sqlite:${file}` });
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toMatch(/^Demo data ready: \{"countries":\d+/);
    expect(existsSync(file)).toBe(true);
  }, 60_000);

  it('`sqlite::memory:` is a new database for every command, as before', async () => {
    expect(await runCli(['jobs', 'list'], { DATABASE_URL: 'sqlite::memory:' })).toMatchObject({ code: 0, stderr: '' });
  });
});
