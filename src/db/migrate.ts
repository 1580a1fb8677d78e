import type BetterSqlite3 from 'better-sqlite3';
import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet, type Transaction } from 'kysely';
import type { DatabaseHandle } from './database.js';
import type { Database } from './schema.js';
import { isDeadlock } from './deadlock.js';
import { migrations } from './migrations/index.js';

/** How `storefront migrate` meets a lock it cannot take (PostgreSQL; config MIGRATE_LOCK_TIMEOUT_MS, MIGRATE_LOCK_RETRIES). */
export interface LockPatience {
  /** How long one statement of a migration waits for a lock before the migration gives up and rolls back (ms); 0: it waits. */
  timeoutMs: number;
  /** How many times a migration that gave up is run again, each after a pause as long as the timeout. */
  retries: number;
  /** Told what a migration waited for: each time it gave up, and (timeout 0) each new wait seen. */
  onWait?: (text: string) => void;
}

/**
 * Brings the schema to the newest version (`list`: this build's migrations; a test gives others);
 * throws with the failing migration's name.
 *
 * SQLite: each migration in a `begin immediate` transaction of its own, with its kysely_migration row
 * (Kysely's Migrator ran them there without a transaction and without a lock; see migrateSqlite). A
 * migration that fails leaves nothing of itself behind, and a second process migrating the same file
 * waits for the write lock, then finds the migration applied. PostgreSQL: each
 * migration in a transaction of its own, committed before the next begins, so what one locks (an
 * `alter table`, a plain `create index`, a backfill's rows) is let go at its own end, not held
 * until the last pending one commits; a migration stays atomic with its own data changes. Each
 * statement there waits at most `patience.timeoutMs` for a lock: a migration that gives up rolls
 * back alone, the run pauses as long (the requests that queued behind its wait are served) and runs
 * it again, up to `patience.retries` times, then throws naming what it waited for. So does one that
 * PostgreSQL ended on a deadlock (40P01): a migration locking several tables one after another meets
 * writers that take them in another order (2026_12_12_1110; test/cli/migrate-deadlock.test.ts). The
 * ones before it stay committed (docs/deployment.md, Migrations).
 */
export async function migrateToLatest(
  handle: DatabaseHandle,
  patience: LockPatience = { timeoutMs: 0, retries: 0 },
  list: Record<string, Migration> = migrations,
): Promise<string[]> {
  if (handle.engine === 'sqlite') return migrateSqlite(handle, list);
  // A database none ran on is used by nobody yet: one transaction there, with nothing to wait for (each
  // migration's own took twice as long, 14 s rather than 7 s for ~120 on a loaded 2-core host: Kysely's
  // checks per run).
  // One look first: an up-to-date database (every process's start, every test app) takes no lock
  // and starts no watch, where migrateUp's own checks cost ~85 ms more.
  const pending = (await pendingMigrations(handle, list)).length;
  if (pending === 0) return [];
  if (pending === Object.keys(list).length) {
    return applied(await migrator(handle.db, list).migrateToLatest());
  }
  const done: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const watch = lockWatch(handle.db, patience);
    let result: MigrationResultSet;
    try {
      result = await migrator(handle.db, list, (up) => lockTimed(up, patience.timeoutMs, watch)).migrateUp();
    } finally {
      watch.stop();
    }
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    if (result.error !== undefined && (isLockTimeout(result.error) || isDeadlock(result.error)) && failed !== undefined) {
      const seen = watch.seen();
      const waited = isDeadlock(result.error)
        ? `Migration ${failed} was ended on a deadlock (40P01)${seen === undefined ? '' : ` while it waited for ${seen}`}`
        : `Migration ${failed} waited ${patience.timeoutMs} ms (MIGRATE_LOCK_TIMEOUT_MS) for ${seen ?? 'a lock (the session holding it ended before it was seen)'}`;
      if (attempt > patience.retries) {
        const before = done.length === 0 ? 'none applied before it' : `${done.length} applied before it stay applied`;
        throw new Error(
          `${waited} and gave up ${attempt} time${attempt === 1 ? '' : 's'}; it rolled back (${before}). ` +
            'End or wait out the session holding the lock (pg_stat_activity), then run storefront migrate again ' +
            '(MIGRATE_LOCK_TIMEOUT_MS=0 waits as long as it takes).',
          { cause: result.error },
        );
      }
      patience.onWait?.(`${waited}; it rolled back, trying again in ${patience.timeoutMs} ms (retry ${attempt} of ${patience.retries})`);
      await new Promise((resolve) => setTimeout(resolve, patience.timeoutMs));
      continue;
    }
    const ran = applied(result);
    if (ran.length === 0) return done;
    done.push(...ran);
    attempt = 0;
  }
}

/**
 * SQLite migrations that make a table again (a copy, drop, create, fill): foreign keys must be off
 * meanwhile, or dropping the table deletes (ON DELETE CASCADE) or empties the rows that refer to it.
 * The pragma does nothing inside a transaction, so migrateSqlite sets it around the migration's; each
 * checks the references to the table it made (`pragma foreign_key_check`), and migrateSqlite checks
 * the whole file's after it, before it commits (refuseDanglingReferences). A migration that sets
 * `pragma foreign_keys = off` must be named here (test/db/migration-rollback.test.ts).
 */
export const SQLITE_FOREIGN_KEYS_OFF: ReadonlySet<string> = new Set(['2026_11_29_0500_unique_live_client_accounts']);

/**
 * How long a SQLite migration waits for the write lock: another process migrating the same file (two
 * processes started together on a new one) holds it for one migration at a time, seconds at most on
 * an empty file, longer for one that rewrites a big table. A process's usual 5 s (database.ts) is
 * restored afterwards.
 */
const SQLITE_MIGRATION_WAIT_MS = 300_000;

const MIGRATION_TABLE = 'kysely_migration';
const MIGRATION_LOCK_TABLE = 'kysely_migration_lock';

/**
 * SQLite's migrations, driven here rather than by Kysely's Migrator: its SQLite adapter declares no
 * transactional DDL, so it ran them without a transaction (a migration that failed halfway kept its
 * first statements and failed again on the next run, "table ... already exists") and without a lock
 * (two processes starting together on a new file both ran the same migration, one of them failing).
 * SQLite has transactional DDL: each migration runs in a `begin immediate` transaction (the write
 * lock, held to its commit) together with its row in Kysely's own table, which the Migrator and
 * pendingMigrations read as before, and the next pending one is looked up inside it, so a process
 * that waited for another's finds that one applied and goes on from the next. A migration that opens
 * a transaction of its own (1710, 0500) gets a savepoint of this one. One transaction per migration,
 * a fresh file's too: it migrates as fast as before (126 migrations in 1.5-2.0 s, against 1.4-2.2 s,
 * on a loaded 2-core host), and a long one lets go of the lock at its own end for the other
 * processes' writes. The first look reads one table (0-13 ms; Kysely's introspection took 30-100 ms).
 */
async function migrateSqlite(handle: DatabaseHandle, list: Record<string, Migration>): Promise<string[]> {
  const names = Object.keys(list).sort();
  // One look first: an up-to-date file (every process's start, every test app) takes no write lock.
  if (nextMigration(names, await executedMigrations(handle.db)) === undefined) return [];
  const sqlite = handle.sqlite!;
  const busyTimeout = Number(sqlite.pragma('busy_timeout', { simple: true }));
  sqlite.pragma(`busy_timeout = ${SQLITE_MIGRATION_WAIT_MS}`);
  const done: string[] = [];
  let keysOff = false;
  try {
    for (;;) {
      if (keysOff) await sql`pragma foreign_keys = off`.execute(handle.db);
      let step: { ran?: string; keysOff?: boolean; finished?: boolean };
      try {
        step = await handle.db.transaction().execute(async (trx) => {
          await ensureMigrationTables(trx);
          const next = nextMigration(names, await executedMigrations(trx));
          if (next === undefined) return { finished: true };
          // Foreign keys are set before the transaction begins: the next one needs them otherwise, so again.
          if (SQLITE_FOREIGN_KEYS_OFF.has(next) !== keysOff) return { keysOff: !keysOff };
          const ended: EndedTransaction = {};
          try {
            await list[next]!.up(withNestedTransactions(trx, sqlite, ended));
          } catch (error) {
            throw new Error(`Migration failed in migration ${next}: ${error instanceof Error ? error.message : String(error)}`, {
              cause: error,
            });
          }
          // It caught an error that ended the whole transaction and went on: its row is not written (in
          // autocommit it would be committed alone, and the commit after it would find no transaction).
          if (ended.by !== undefined || !sqlite.inTransaction) throw endedInside(next, ended, sqlite.inTransaction);
          if (keysOff) await refuseDanglingReferences(trx, next);
          await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values (${next}, ${new Date().toISOString()})`.execute(trx);
          return { ran: next };
        });
      } catch (error) {
        throw (error as { code?: unknown }).code === 'SQLITE_BUSY'
          ? new Error(
              `Migrations waited ${SQLITE_MIGRATION_WAIT_MS / 1000} s for SQLite's write lock, held by another process ` +
                '(a migration of its own or a long write); none more were applied. Run storefront migrate again once it is done.',
              { cause: error },
            )
          : error;
      } finally {
        if (keysOff) await sql`pragma foreign_keys = on`.execute(handle.db);
      }
      if (step.finished) return done;
      if (step.ran !== undefined) done.push(step.ran);
      keysOff = step.keysOff ?? false;
    }
  } finally {
    sqlite.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

/** How many dangling references the error names (the check stops at one more). */
const DANGLING_NAMED = 5;

/**
 * After a migration run with foreign keys off, before its row: a row of any table (not only the
 * one it made again) that refers to none fails it, rolled back, as foreign keys on would have
 * failed the statement that left it. The whole file is read (every child table, its parents by
 * their keys): seconds on a big one, for the few migrations in SQLITE_FOREIGN_KEYS_OFF.
 */
async function refuseDanglingReferences(trx: Transaction<Database>, name: string): Promise<void> {
  const { rows } = await sql<{ table: string; rowid: number | null; parent: string }>`
    select "table", rowid, parent from pragma_foreign_key_check limit ${DANGLING_NAMED + 1}`.execute(trx);
  if (rows.length === 0) return;
  const named = rows
    .slice(0, DANGLING_NAMED)
    .map((row) => `${row.table} row ${row.rowid ?? '(no rowid)'} (to ${row.parent})`)
    .join(', ');
  throw new Error(
    `Migration failed in migration ${name}: it ran with foreign keys off and left rows referring to none: ${named}` +
      `${rows.length > DANGLING_NAMED ? ', and more' : ''} (pragma foreign_key_check); it rolled back. ` +
      'Rows that referred to none before it ran are named too: delete or mend them, then run it again.',
  );
}

/** Names of the applied migrations (none when Kysely's table is not there yet). */
async function executedMigrations(db: Kysely<Database>): Promise<string[]> {
  const { rows: table } = await sql`select 1 from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db);
  if (table.length === 0) return [];
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * The first of `names` not applied; throws as Kysely's Migrator does when the applied ones are not
 * the first of them (a build older than the file's schema, or a migration named before one applied).
 */
function nextMigration(names: string[], executed: string[]): string | undefined {
  const known = new Set(names);
  const missing = executed.find((name) => !known.has(name));
  if (missing !== undefined) throw new Error(`Migration failed: corrupted migrations: previously executed migration ${missing} is missing`);
  const applied = new Set(executed);
  const next = names.findIndex((name) => !applied.has(name));
  if (next === -1) return undefined;
  const after = names.slice(next).find((name) => applied.has(name));
  if (after !== undefined) {
    throw new Error(
      `Migration failed: corrupted migrations: ${names[next]} is not applied but ${after}, after it, is. ` +
        'New migrations must always have a name that comes alphabetically after the last executed migration.',
    );
  }
  return names[next];
}

/** Kysely's migration tables, as its Migrator makes them (it reads and migrates these files too: tests, down). */
async function ensureMigrationTables(trx: Transaction<Database>): Promise<void> {
  const db = trx as unknown as Kysely<unknown>;
  await db.schema
    .createTable(MIGRATION_TABLE)
    .ifNotExists()
    .addColumn('name', 'varchar(255)', (col) => col.notNull().primaryKey())
    .addColumn('timestamp', 'varchar(255)', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable(MIGRATION_LOCK_TABLE)
    .ifNotExists()
    .addColumn('id', 'varchar(255)', (col) => col.notNull().primaryKey())
    .addColumn('is_locked', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`insert or ignore into ${sql.table(MIGRATION_LOCK_TABLE)} (id, is_locked) values ('migration_lock', 0)`.execute(trx);
}

/** Set by a migration's nested transaction that found the whole transaction ended by its error. */
interface EndedTransaction {
  by?: unknown;
  /** Whether a transaction was begun again then (a `begin immediate` that waited past the busy timeout was not). */
  begunAgain?: boolean;
}

/**
 * The error of a migration that went on after an error ended its whole transaction (INSERT OR
 * ROLLBACK, RAISE(ROLLBACK), SQLITE_FULL, caught by the migration). Ended in a nested transaction, a
 * new one was begun there, so what the migration ran after it is rolled back with it; ended by a
 * statement of its own (no transaction open now), what it ran after that ran in autocommit, each
 * statement committed alone.
 */
function endedInside(name: string, ended: EndedTransaction, inTransaction: boolean): Error {
  const by = ended.by === undefined ? '' : ` by "${ended.by instanceof Error ? ended.by.message : String(ended.by)}"`;
  const after =
    ended.begunAgain !== true || !inTransaction
      ? 'what it ran after that ran outside any transaction, each statement committed on its own: look at what it changed before running it again'
      : 'nothing of it was applied';
  return new Error(
    `Migration failed in migration ${name}: its transaction was ended inside it${by} ` +
      '(an error that rolls back the whole SQLite transaction: INSERT OR ROLLBACK, RAISE(ROLLBACK), a full disk), ' +
      `which the migration caught and went on from; it was not recorded, and ${after}. ` +
      'A migration must let such an error through.',
    { cause: ended.by },
  );
}

let savepoints = 0;

/**
 * `trx` as a migration's `db`, whose `transaction().execute(work)` runs `work` under a savepoint of
 * `trx` (rolled back to it when `work` throws), where Kysely's Transaction refuses: 1710 and 0500
 * open a transaction of their own, as they could when the Migrator gave them none. When `work`'s
 * error ended the whole transaction, `ended` is told and a transaction is begun again: a migration
 * that catches the error and goes on runs the rest in it, rolled back when migrateSqlite fails it.
 */
function withNestedTransactions(trx: Transaction<Database>, sqlite: BetterSqlite3.Database, ended: EndedTransaction): Kysely<unknown> {
  const nested: Kysely<unknown> = new Proxy(trx, {
    get(target, key) {
      if (key === 'transaction') return () => underSavepoint;
      // Kysely's classes keep their state in private fields: their methods run on the transaction itself.
      // A getter already ran on it, and what it gives is returned as it is: `fn` is a function whose
      // properties are the functions (db.fn.count), which a bound copy would not have.
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' && !isGetter(target, key) ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as Kysely<unknown>;
  // How many times the transaction was begun again: a savepoint made before that is gone with the one it was of.
  let begun = 0;
  const underSavepoint = {
    setIsolationLevel: () => underSavepoint,
    setAccessMode: () => underSavepoint,
    async execute<T>(work: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
      savepoints = (savepoints + 1) % 1_000_000;
      const name = sql.raw(`"migration_${savepoints}"`);
      const of = begun;
      await sql`savepoint ${name}`.execute(trx);
      try {
        const result = await work(nested);
        // A savepoint within it caught the end of the whole transaction and went on: migrateSqlite fails the migration.
        if (begun === of) await sql`release ${name}`.execute(trx);
        return result;
      } catch (error) {
        // An error that ended the whole transaction (INSERT OR ROLLBACK, RAISE(ROLLBACK), SQLITE_FULL) left
        // no savepoint to go back to (nor did it for a savepoint around this one, once a new transaction
        // was begun): the migration fails with that error, not with "no such savepoint".
        if (!sqlite.inTransaction) {
          ended.by ??= error;
          begun += 1;
          ended.begunAgain = await sql`begin immediate`.execute(trx).then(
            () => true,
            () => false,
          );
        } else if (begun === of) {
          await sql`rollback to ${name}`.execute(trx);
          await sql`release ${name}`.execute(trx);
        }
        throw error;
      }
    },
  };
  return nested;
}

/** Whether `key` is an accessor of `target` or of its prototypes (Kysely's `schema`, `fn`, `introspection`). */
function isGetter(target: object, key: string | symbol): boolean {
  for (let on: object | null = target; on !== null; on = Object.getPrototypeOf(on) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(on, key);
    if (descriptor !== undefined) return descriptor.get !== undefined;
  }
  return false;
}

function migrator(
  db: Kysely<Database>,
  list: Record<string, Migration> = migrations,
  wrap: (up: Migration['up']) => Migration['up'] = (up) => up,
): Migrator {
  const wrapped = Object.fromEntries(Object.entries(list).map(([name, m]) => [name, { ...m, up: wrap(m.up) }]));
  return new Migrator({ db, provider: { getMigrations: async () => wrapped } });
}

/** A migration's up that first sets its transaction's lock timeout and tells `watch` which session to watch. */
function lockTimed(up: Migration['up'], timeoutMs: number, watch?: LockWatch): Migration['up'] {
  return async (db) => {
    const { rows } = await sql<{
      pid: number;
    }>`select set_config('lock_timeout', ${String(timeoutMs)}, true), pg_backend_pid() as pid`.execute(db);
    watch?.start(Number(rows[0]!.pid));
    await up(db);
  };
}

/** lock_not_available: a statement gave up on lock_timeout. */
const isLockTimeout = (error: unknown) => (error as { code?: unknown } | null)?.code === '55P03';

interface LockWatch {
  start(pid: number): void;
  /** What the migration's session was last seen waiting for. */
  seen(): string | undefined;
  stop(): void;
}

/**
 * Looks, on another connection of the pool, at what the migration's session waits for: a few times
 * within the lock timeout (every second with none), so that when it gives up the message can name
 * the table and the session holding it. One small read of pg_locks a poll, only while a migration runs.
 */
function lockWatch(db: Kysely<Database>, patience: LockPatience): LockWatch {
  const everyMs = patience.timeoutMs === 0 ? 1000 : Math.min(1000, Math.max(20, Math.floor(patience.timeoutMs / 4)));
  let timer: NodeJS.Timeout | undefined;
  let last: string | undefined;
  let stopped = false;
  const told = new Set<string>();
  const poll = async (pid: number) => {
    const now = await waitingFor(db, pid).catch(() => undefined);
    if (stopped) return;
    if (now !== undefined) {
      last = now;
      if (patience.timeoutMs === 0 && !told.has(now)) {
        told.add(now);
        patience.onWait?.(`The migration waits for ${now}`);
      }
    }
    timer = setTimeout(() => void poll(pid), everyMs);
  };
  return {
    start(pid) {
      timer = setTimeout(() => void poll(pid), everyMs);
    },
    seen: () => last,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** What session `pid` waits for now ("table client_account, held by pid 123 (idle in transaction, its transaction 40 s old): select ..."), if it waits. */
async function waitingFor(db: Kysely<Database>, pid: number): Promise<string | undefined> {
  const { rows } = await sql<{
    relation: string | null;
    locktype: string;
    holder: number | null;
    state: string | null;
    age_s: number | null;
    query: string | null;
  }>`
    select w.relation::regclass::text as relation, w.locktype, b.pid as holder, b.state,
      floor(extract(epoch from clock_timestamp() - b.xact_start))::int as age_s, left(b.query, 80) as query
    from pg_locks w
    left join lateral unnest(pg_blocking_pids(w.pid)) as h(pid) on true
    left join pg_stat_activity b on b.pid = h.pid
    where w.pid = ${pid} and not w.granted
    limit 1`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  const what = row.relation !== null ? `table ${row.relation}` : `a ${row.locktype} lock`;
  if (row.holder === null) return what;
  const age = row.age_s === null ? '' : `, its transaction ${row.age_s} s old`;
  return `${what}, held by pid ${row.holder} (${row.state ?? 'unknown state'}${age}): ${(row.query ?? '').replace(/\s+/g, ' ').trim()}`;
}

function applied({ error, results = [] }: MigrationResultSet): string[] {
  const failed = results.find((result) => result.status === 'Error');
  if (error) {
    const where = failed ? ` in migration ${failed.migrationName}` : '';
    throw new Error(`Migration failed${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Migrations this build has that the database has not run yet. */
export async function pendingMigrations(handle: DatabaseHandle, list: Record<string, Migration> = migrations): Promise<string[]> {
  return (await migrator(handle.db, list).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Makes the schema the one this build's code expects, before a process or a command uses it. The
 * embedded database migrates itself; PostgreSQL is shared by every process of a release and is
 * migrated by an operator, explicitly (`storefront migrate`), so a build that finds migrations
 * pending there refuses, naming the command: code run against the schema it does not expect fails
 * midway on a table or column it cannot find ("relation "job" does not exist").
 */
export async function prepareSchema(handle: DatabaseHandle): Promise<void> {
  if (handle.engine === 'sqlite') {
    await migrateToLatest(handle);
    return;
  }
  const pending = await pendingMigrations(handle);
  if (pending.length === 0) return;
  // A count and the first and last name: a fresh database lacks every migration, and ~80 names on one line hide the command.
  const names = pending.length <= 2 ? pending.join(', ') : `${pending[0]} ... ${pending.at(-1)}`;
  throw new Error(
    `The database needs ${pending.length} migration${pending.length === 1 ? '' : 's'} (${names}); run: storefront migrate (npm run cli -- migrate in a checkout)`,
  );
}
