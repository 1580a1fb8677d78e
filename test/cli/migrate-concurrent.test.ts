import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { runCli, runCliProcess, type CliResult } from '../helpers/cli.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { migrationNames as names, scratchDatabaseBefore } from '../helpers/migrated-before.js';
import { engine } from '../helpers/test-app.js';

// Two `storefront migrate` processes at once (two release steps racing) on PostgreSQL, now that each
// migration commits on its own (Kysely's migrateUp() in a loop, its advisory lock per call) and a
// database none ran on takes them all in one transaction: each migration runs once, both exit 0, and
// between them they name every pending migration once. And a migration that fails for a reason other
// than a lock timeout is not run again: migrate exits 1 naming it, the ones before it stay applied.

const DELTA_STAMP = '2026_12_11_1610_stamp_category_listing_delta';

let open: Array<{ database: DatabaseHandle; drop: () => Promise<void> }> = [];
afterEach(async () => {
  for (const { database, drop } of open) {
    await database.close();
    await drop();
  }
  open = [];
});

/** A scratch database migrated up to (not including) `before`, closed and dropped after the test. */
async function databaseBefore(before: string): Promise<{ url: string; database: DatabaseHandle }> {
  const { url, database, drop } = await scratchDatabaseBefore(before);
  open.push({ database, drop });
  return { url, database };
}

async function executed(database: DatabaseHandle): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
  return rows.map((row) => row.name);
}

const appliedBy = (result: CliResult): string[] => {
  const line = result.stdout.split('\n').find((l) => l.startsWith('Applied: '));
  return line === undefined ? [] : line.slice('Applied: '.length).split(', ');
};

describe.runIf(engine === 'postgres')('two storefront migrate processes at once', () => {
  it.each([
    ['a database twelve migrations behind (one transaction each)', names.at(-12)!],
    ['a database none ran on (all in one transaction)', names[0]!],
  ])('on %s: each migration runs once, both exit 0', { timeout: 240_000 }, async (_, before) => {
    const { url, database } = await databaseBefore(before);
    const pending = names.slice(names.indexOf(before));
    const env = { DATABASE_URL: url, MIGRATE_LOCK_TIMEOUT_MS: '5000', MIGRATE_LOCK_RETRIES: '0' };
    const [a, b] = await Promise.all([runCliProcess(['migrate'], env), runCliProcess(['migrate'], env)]);
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    expect({ code: b.code, stderr: b.stderr }).toEqual({ code: 0, stderr: '' });
    const both = [...appliedBy(a), ...appliedBy(b)];
    expect(both.sort()).toEqual(pending);
    expect(await executed(database)).toEqual(names);
  });
});

/** Runs `race` with the env of a new SQLite file, then expects every migration applied to it; removes the file. */
async function onNewSqliteFile(race: (env: { DATABASE_URL: string }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-migrate-race-'));
  try {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'race.db')}` };
    await race(env);
    const database = createDatabase(env.DATABASE_URL);
    try {
      expect(await executed(database)).toEqual(names);
    } finally {
      await database.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// SQLite: Kysely's Migrator ran the migrations there without a transaction and without a lock, so two
// processes starting together on one new file (two `npm start`, a `serve` and a `migrate`) both ran
// the first migration and one failed on "table ... already exists". Each migration now runs in a
// `begin immediate` transaction with its kysely_migration row; the other process waits for SQLite's
// write lock and then finds it applied.
describe.runIf(engine === 'sqlite')('SQLite: storefront migrate processes at once on one new file', () => {
  it('each migration runs once, every process exits 0', { timeout: 240_000 }, async () => {
    await onNewSqliteFile(async (env) => {
      const runs = await Promise.all([1, 2, 3].map(() => runCliProcess(['migrate'], env)));
      for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(runs.flatMap(appliedBy).sort()).toEqual(names);
    });
  });
});

describe.runIf(engine === 'sqlite')('SQLite: serve and storefront migrate started together on one new file', () => {
  it('both migrate it without a failure: migrate exits 0, serve is still up when stopped', { timeout: 240_000 }, async () => {
    await onNewSqliteFile(async (env) => {
      const [serve, migrate] = await Promise.all([
        runCliProcess(['serve'], { ...env, PORT: '0', PASSWORD_HASH_CONCURRENCY: '1' }, { killAfterMs: 45_000 }),
        runCliProcess(['migrate'], env),
      ]);
      expect({ code: migrate.code, stderr: migrate.stderr }).toEqual({ code: 0, stderr: '' });
      // Killed (null), not exit 1 on a migration another process ran.
      expect({ code: serve.code, stderr: serve.stderr }).toEqual({ code: null, stderr: '' });
    });
  });
});

describe.runIf(engine === 'postgres')('a migration that fails for another reason than a lock timeout', () => {
  it('is not run again: exit 1 naming it, the ones before it applied', { timeout: 120_000 }, async () => {
    // Two migrations before it run first in the same migrate, and stay applied.
    const { url, database } = await databaseBefore(names[names.indexOf(DELTA_STAMP) - 2]!);
    // 1610 adds this column: its alter table fails (42701), not on a lock.
    await sql`alter table category_listing_delta add column created_at bigint`.execute(database.db);
    const result = await runCli(['migrate'], { DATABASE_URL: url, MIGRATE_LOCK_TIMEOUT_MS: '200', MIGRATE_LOCK_RETRIES: '3' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Migration failed in migration ${DELTA_STAMP}: column "created_at" of relation "category_listing_delta" already exists`,
    );
    expect(result.stderr).not.toContain('trying again');
    expect(await executed(database)).toEqual(names.slice(0, names.indexOf(DELTA_STAMP)));
  });
});

describe.runIf(engine === 'postgres')('2026_12_11_1610 while the category totals are written', () => {
  it('adds created_at behind a writer in flight; every delta, before, between and after, has one', { timeout: 120_000 }, async () => {
    const { url, database } = await databaseBefore(DELTA_STAMP);
    await sql`insert into category_listing_delta (category_id, audience, delta) values (1, 'R', 1)`.execute(database.db);
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const writer = database.db.transaction().execute(async (trx) => {
      await sql`insert into category_listing_delta (category_id, audience, delta) values (2, 'R', 1)`.execute(trx);
      await committed;
    });
    const before = Date.now();
    const run = runCli(['migrate'], { DATABASE_URL: url, MIGRATE_LOCK_TIMEOUT_MS: '500', MIGRATE_LOCK_RETRIES: '20' });
    await until('migrate to wait for the writer', async () => (await lockWaiters(database.db)) > 0);
    // A writer that starts while the alter table waits: it queues behind it or goes first when it gives up.
    const second = sql`insert into category_listing_delta (category_id, audience, delta) values (3, 'R', 1)`.execute(database.db);
    commit();
    await writer;
    await second;
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    // 1610 and the ones after it.
    expect(result.stdout).toBe(`Applied: ${names.slice(names.indexOf(DELTA_STAMP)).join(', ')}\n`);
    await sql`insert into category_listing_delta (category_id, audience, delta) values (4, 'R', 1)`.execute(database.db);
    const { rows } = await sql<{ category_id: string; created_at: string | null }>`
      select category_id, created_at from category_listing_delta order by category_id`.execute(database.db);
    expect(rows.map((row) => Number(row.category_id))).toEqual([1, 2, 3, 4]);
    for (const row of rows) {
      expect(row.created_at).not.toBeNull();
      expect(Number(row.created_at)).toBeGreaterThanOrEqual(before - 60_000);
      expect(Number(row.created_at)).toBeLessThanOrEqual(Date.now() + 1_000);
    }
  });
});
