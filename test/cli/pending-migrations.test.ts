import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';
import { engine, scratchDatabase } from '../helpers/test-app.js';

// A release's new build run before `storefront migrate` (or on a database nobody migrated): on
// PostgreSQL, which only `migrate` migrates, every command that uses the database refuses as `serve`
// does, naming the migrations and the command, instead of failing midway on a column or table it
// cannot find with the database's own words ("relation "job" does not exist"). SQLite migrates.

const newest = Object.keys(migrations).sort().at(-1)!;

/** The newest migration undone, as on a database the release before this build migrated. */
async function undoNewestMigration(url: string): Promise<void> {
  const database = createDatabase(url);
  try {
    const { error } = await new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } }).migrateDown();
    if (error) throw error;
  } finally {
    await database.close();
  }
}

describe('a command on a database one migration behind this build', () => {
  let cli: CliScratch;
  beforeAll(async () => {
    cli = await cliScratch('storefront-behind-');
    await undoNewestMigration(cli.env.DATABASE_URL!);
  });
  afterAll(() => cli.remove());

  it.runIf(engine === 'postgres')('refuses on PostgreSQL, naming the migration and `storefront migrate`, and changes nothing', async () => {
    const result = await runCli(['subscription', 'charges', '--refund-refused'], cli.env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: The database needs 1 migration (${newest}); run: storefront migrate (npm run cli -- migrate in a checkout)\n`,
    );
    expect((await runCli(['migrate'], cli.env)).stdout).toBe(`Applied: ${newest}\n`);
    expect(await runCli(['subscription', 'charges', '--refund-refused'], cli.env)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it.runIf(engine === 'sqlite')('migrates the SQLite file first, then runs', async () => {
    expect(await runCli(['subscription', 'charges', '--refund-refused'], cli.env)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await runCli(['migrate'], cli.env)).stdout).toBe('The database is up to date.\n');
  });
});

describe.runIf(engine === 'postgres')('a command on a PostgreSQL database nobody migrated', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  beforeAll(async () => {
    scratch = await scratchDatabase();
  });
  afterAll(() => scratch.drop());

  it.each([
    ['jobs', 'list'],
    ['api-key', 'list'],
    ['seed', '--demo'],
    ['search', 'status'],
  ])('`%s %s` says how many migrations it needs and what to run', async (...args) => {
    const result = await runCli(args, { DATABASE_URL: scratch.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: The database needs ${Object.keys(migrations).length} migrations \\(\\S+ \\.\\.\\. ${newest}\\); run: storefront migrate`,
      ),
    );
  });
});
