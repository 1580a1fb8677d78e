import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDatabase, type DatabaseHandle, type DatabaseOptions } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { systemClock, type Clock } from '../../src/infra/clock.js';
import { createJobRunner, type JobRunner } from '../../src/worker.js';
import { databaseUrl } from '../setup/postgres-template.js';
import { adminQuery, dropInBackground, scratchName, takeCopy, WITHOUT_JIT } from './postgres-scratch.js';

export interface TestApp {
  app: App;
  database: DatabaseHandle;
  config: Config;
  /** The app's clock (options.clock, else the system's): its job runner's, and a second worker's (second-worker.ts). */
  clock: Clock;
  /** The worker with the real mailer; tests run due jobs with drainJobs() instead of polling. */
  jobs: JobRunner;
  drainJobs(): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Runs after the modules are registered and before the app is ready: add test-only routes here. */
  beforeReady?: (app: App) => void | Promise<void>;
  /**
   * SQLite: a database file (in a scratch directory) instead of `:memory:`, which the read pool
   * (SQLITE_READ_WORKERS) needs; TEST_SQLITE_FILE=1 gives every app one.
   */
  sqliteFile?: boolean;
  /** Where the app (and its job runner) logs instead of stdout; see log-capture.ts. Give a LOG_LEVEL too. */
  logStream?: { write(line: string): void };
  /**
   * The handle the app is given instead of the database itself (e.g. one that records the
   * statements, see recording-database.ts); the test's `database` stays the one opened here.
   */
  wrapDatabase?: (database: DatabaseHandle) => DatabaseHandle;
  /** The app's clock (fixedClock: a test moves it by hand); the system's by default. */
  clock?: Clock;
}

/**
 * The key saved cards' tokens are sealed with in tests (CARD_TOKEN_KEYS), on both engines: PostgreSQL
 * refuses to start without one. The apps and the command lines (cli.ts) of a test agree on it.
 */
export const TEST_CARD_TOKEN_KEYS = `test1:${Buffer.alloc(32, 7).toString('base64')}`;

/** Which engine the suite runs on: PostgreSQL when TEST_DATABASE_URL is set, else SQLite. */
export const engine = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** An app on a fresh, migrated database of its own, as every test file gets. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const scratch = await migratedScratchDatabase(options.sqliteFile ?? process.env.TEST_SQLITE_FILE === '1');
  // Without SMTP_URL mails go to files: never into the working tree.
  const mailDir = mkdtempSync(join(tmpdir(), 'storefront-mail-'));
  let database: DatabaseHandle | undefined;
  let app: App | undefined;
  const release = async () => {
    await app?.close();
    await database?.close();
    await scratch.drop();
    rmSync(mailDir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      STORE_CACHE_TTL_MS: '0',
      CATALOGUE_CACHE_TTL_MS: '0',
      CATALOGUE_LIST_CACHE_TTL_MS: '0',
      // Suites make many auth calls from one address; the rate-limit tests set their own limits.
      AUTH_RATE_LIMIT_PER_IP: '100000/1m',
      AUTH_RATE_LIMIT_PER_EMAIL: '100000/1m',
      // The same for search and session actions, and the search time budget: on a loaded CI machine
      // a search costs more of the per-address work budget and of its time; abuse.test.ts and
      // session-action-abuse.test.ts set their own.
      SEARCH_RATE_LIMIT_PER_IP: '100000000/1m',
      SEARCH_TIME_BUDGET_MS: '30000',
      SESSION_ACTION_RATE_LIMIT_PER_IP: '100000000/1m',
      SESSION_ACTION_RATE_LIMIT_PER_SESSION: '100000000/1m',
      // And for a guest's basket writes (per process, in memory); guest-baskets-limit.test.ts and
      // rate-limit-sweep.test.ts set their own.
      BASKET_WRITE_RATE_LIMIT_PER_IP: '100000000/1m',
      // Tests read the export right after they write; settle.test.ts sets its own.
      DATA_EXPORT_SETTLE_MS: '0',
      // The same for the operators' order feed; admin-orders-feed-settle.test.ts sets its own.
      ORDER_FEED_SETTLE_MS: '0',
      MAIL_DIR: mailDir,
      CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS,
      ...options.env,
      DATABASE_URL: scratch.url,
    });
    database = createDatabase(config.databaseUrl, {
      readWorkers: config.sqliteReadWorkers,
      replica: config.replica,
      sqliteImage: config.databaseUrl === MEMORY ? await migratedSqliteImage() : undefined,
    });
    // What creates every table in a database file; on a copy of the migrated SQLite image or
    // PostgreSQL template, a safety net for a migration the copy missed.
    await migrateCopy(database, copyOf(scratch));
    app = await buildApp(config, {
      database: options.wrapDatabase?.(database) ?? database,
      logStream: options.logStream,
      clock: options.clock,
    });
    await options.beforeReady?.(app);
    await app.ready();
    // The app's clock is the worker's too: jobs are claimed by the time they were queued at, and the jobs
    // that read the time read it, as a moved clock's tests expect.
    const clock = options.clock ?? systemClock;
    const jobs = createJobRunner(database, config, app.log, { clock });
    return {
      app,
      database,
      config,
      clock,
      jobs,
      drainJobs: () => jobs.worker.drain(),
      async close() {
        await jobs.stop();
        await release();
      },
    };
  } catch (error) {
    // A file whose app never came up must not leave its PostgreSQL database behind.
    await release().catch(() => {});
    throw error;
  }
}

const MEMORY = 'sqlite::memory:';

let sqliteImage: Promise<Buffer> | undefined;

/**
 * An in-memory SQLite database with every migration run, as an image (better-sqlite3's
 * serialize()) that createDatabase opens as a database of its own. Running the migrations took
 * ~0.3 s of CPU per app, a few hundred times a run; copying the image takes about a millisecond.
 * Made once per worker (files share the worker's modules, vitest.config.ts), like PostgreSQL's
 * template once per run (test/setup/postgres-template.ts).
 */
export function migratedSqliteImage(): Promise<Buffer> {
  sqliteImage ??= (async () => {
    const database = createDatabase(MEMORY);
    try {
      await migrateToLatest(database);
      return database.sqlite!.serialize();
    } finally {
      await database.close();
    }
  })().catch((error: unknown) => {
    sqliteImage = undefined;
    throw error;
  });
  return sqliteImage;
}

interface ScratchDatabase {
  url: string;
  /** The PostgreSQL template it is a copy of. */
  template?: string;
  drop(): Promise<void>;
}

/** What a scratch database opened by this file is a copy of: the worker's migrated SQLite image (in memory), or a template. */
const copyOf = (scratch: ScratchDatabase) => (scratch.url === MEMORY ? 'the migrated SQLite image' : scratch.template);

/** Images and templates whose copies were found to have no migration left to run. */
const upToDateCopiesOf = new Set<string>();

/**
 * Runs the migrations a database lacks. Copies of one image or template are alike, so once one had
 * nothing to run, the next are not checked again: on PostgreSQL the check (Kysely's Migrator looks
 * its tables up by reading every table's columns) took 0.3-0.8 s a copy on a loaded machine,
 * as long as making the copy.
 */
async function migrateCopy(database: DatabaseHandle, source: string | undefined): Promise<void> {
  if (source !== undefined && upToDateCopiesOf.has(source)) return;
  const applied = await migrateToLatest(database);
  if (source !== undefined && applied.length === 0) upToDateCopiesOf.add(source);
}

/** sqlite::memory:, or a new, empty PostgreSQL database on the server TEST_DATABASE_URL points at. */
export async function scratchDatabase(): Promise<ScratchDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return { url: MEMORY, drop: async () => {} };
  const name = scratchName();
  await adminQuery(adminUrl, `create database ${name}`);
  await adminQuery(adminUrl, WITHOUT_JIT(name));
  return scratchOn(adminUrl, name);
}

/**
 * Like scratchDatabase, but on PostgreSQL a copy of the template the global setup migrated
 * (test/setup/postgres-template.ts); SQLite in memory migrates faster than it copies.
 */
export async function migratedScratchDatabase(sqliteFile = false): Promise<ScratchDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl && sqliteFile) {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-db-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const template = inject('postgresTemplate');
  if (!adminUrl || !template) return scratchDatabase();
  return { ...scratchOn(adminUrl, await takeCopy(adminUrl, template)), template };
}

/** A migrated scratch database opened as the service opens one (no app); `close` closes and drops it. */
export async function openMigratedScratch(options: DatabaseOptions = {}): Promise<{ database: DatabaseHandle; close(): Promise<void> }> {
  const scratch = await migratedScratchDatabase();
  const database = createDatabase(scratch.url, {
    ...options,
    sqliteImage: scratch.url === MEMORY ? await migratedSqliteImage() : undefined,
  });
  await migrateCopy(database, copyOf(scratch));
  return {
    database,
    async close() {
      await database.close();
      await scratch.drop();
    },
  };
}

function scratchOn(adminUrl: string, name: string): ScratchDatabase {
  return {
    url: databaseUrl(adminUrl, name),
    // Dropping waits for a checkpoint; nothing after a file's end needs it gone (postgres-scratch.ts).
    drop: async () => dropInBackground(adminUrl, name),
  };
}
