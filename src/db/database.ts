import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import {
  namedQuery,
  PoolQueryPostgresDialect,
  singlePool,
  statementNames,
  type PoolSource,
  type StatementNames,
} from './postgres-driver.js';
import { replicaRouter } from './replica-routing.js';
import type { Database } from './schema.js';
import { CachedSqliteDialect } from './sqlite-driver.js';
import { SqliteReadPoolDialect } from './sqlite-read-dialect.js';
import { SqliteReadPool } from './sqlite-read-pool.js';
import { refuseUnusableSqliteFile, sqliteFileOf } from './sqlite-file.js';
import { dropStat4Samples } from './sqlite-statistics.js';
import { registerTimeBudgetFunction } from './time-budget-function.js';

export type Engine = 'sqlite' | 'postgres';

/** The database or an open transaction: what every repository function takes first. */
export type Db = Kysely<Database> | Transaction<Database>;

export interface DatabaseHandle {
  db: Kysely<Database>;
  /**
   * For reads that can be slow (lists, search, facets, exports), outside transactions only: on
   * SQLite with a read pool, read-only connections in worker threads (db/sqlite-read-pool.ts), so
   * the event loop does not wait for them; else `db` itself (PostgreSQL's pool already reads off
   * the loop). A read sees every committed write, so a request reads its own write once its
   * transaction has committed; reads that must see a transaction's writes go to that transaction.
   */
  readDb: Kysely<Database>;
  engine: Engine;
  /** The raw better-sqlite3 handle on SQLite, for benchmarks and maintenance only. */
  sqlite?: BetterSqlite3.Database;
  /**
   * Runs compiled SQL outside any transaction by the shortest path the engine has: the cached
   * statement on SQLite, `pool.query` on PostgreSQL. Used by prepared queries (db/prepared.ts).
   */
  select<R>(sql: string, parameters: readonly unknown[]): Promise<R[]>;
  /**
   * Runs compiled SQL on `db`: inside an open transaction on its connection (the cached statement
   * at once on SQLite, the transaction's client on PostgreSQL), else as `select` does.
   */
  selectOn<R>(db: Db, sql: string, parameters: readonly unknown[]): Promise<R[]>;
  /**
   * `select 1` by the shortest path the engine has, for the health probes: on SQLite a statement
   * prepared once and run at once on the main connection, after an open transaction as any read
   * (through the query layer it cost a health answer a tenth of its CPU time, bench/RESULTS.md); on
   * PostgreSQL a round trip through the pool. Rejects when the database cannot answer (closed, unreachable).
   */
  ping(): Promise<void>;
  /**
   * The same database for reads that may be a moment stale (catalogue, search, content, export):
   * with a PostgreSQL read replica (DATABASE_REPLICA_URL), its plain SELECTs outside transactions
   * go to the replica while it keeps up (db/replica-routing.ts); everything else, and every read
   * without a replica, goes where this handle's do. The handle owns it: close the handle, not this.
   */
  replicaReads: DatabaseHandle;
  /** With a replica: whether it is read from now (for readiness and metrics). */
  replicaUsable?: () => boolean;
  /**
   * With a replica, on `replicaReads`: whether its reads made now see the primary's WAL up to `lsn`, or
   * `'primary'` while they go to the primary (db/replica-routing.ts, `seesPrimaryWal`); undefined where
   * every read goes to the primary.
   */
  seesPrimaryWal?: (lsn: string) => Promise<boolean | 'primary'>;
  /** The connections now, for /metrics: the pool's on PostgreSQL; SQLite's one connection and the transactions waiting for it. */
  connections(): ConnectionStats;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  url: string;
  /** Past this much replay lag the replica is not read from (ms). */
  maxLagMs: number;
}

export interface DatabaseOptions {
  /** SQLite: worker threads of the read pool behind `readDb` (0: none, `readDb` is `db`; never for `:memory:`). */
  readWorkers?: number;
  /** PostgreSQL only: a streaming replica for `replicaReads`. */
  replica?: ReplicaOptions;
  /**
   * PostgreSQL only: prepared queries run as named statements, parsed and planned once per
   * connection (default). Off for a connection pooler that cannot keep them per client.
   */
  preparedStatements?: boolean;
  /**
   * PostgreSQL only: how long opening a connection may take (DATABASE_CONNECT_TIMEOUT_MS; 10 s by
   * default). Without it a server that takes the connection and never answers (a hung server, a proxy
   * in front of one that is down) held every statement for good: /site/health never answered, a
   * command never ended.
   */
  connectTimeoutMs?: number;
  /**
   * SQLite in memory only: start from this database image (better-sqlite3's `serialize()`) instead
   * of an empty database. The tests open every app's database from one migrated image, as they
   * clone a migrated template on PostgreSQL, instead of running every migration again.
   */
  sqliteImage?: Buffer;
}

export interface ConnectionStats {
  /** Connections open (SQLite: 1). */
  open: number;
  /** Of them, idle (SQLite: 0 while a transaction holds the connection). */
  idle: number;
  /** Callers waiting for a connection (SQLite: transactions waiting for the open one). */
  waiting: number;
  /** The most the pool opens. */
  max: number;
}

const INT8_OID = 20;
/** A ping that succeeded at once: one settled promise for all of them. */
const PINGED = Promise.resolve();
const POOL_MAX = 10;
const CONNECT_TIMEOUT_MS = 10_000;

export function createDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) {
    if (options.replica) throw new Error('A read replica (DATABASE_REPLICA_URL) needs PostgreSQL');
    // A folder or a file of another kind, named by DATABASE_URL: said so, before SQLite's own words.
    refuseUnusableSqliteFile(url);
    return openSqlite(sqliteFileOf(url) ?? ':memory:', options.readWorkers ?? 0, options.sqliteImage);
  }
  if (/^postgres(ql)?:\/\//.test(url))
    return openPostgres(url, options.replica, options.preparedStatements ?? true, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  throw new Error(`Unsupported database URL "${url}": use sqlite:<file>, sqlite::memory: or postgres://...`);
}

function openSqlite(file: string, readWorkers: number, image?: Buffer): DatabaseHandle {
  if (image && file !== ':memory:') throw new Error('A database image (sqliteImage) opens only in memory: use sqlite::memory:');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(image ?? file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Other processes (the CLI, a worker) write to the same file; wait for their lock, do not fail.
  sqlite.pragma('busy_timeout = 5000');
  // A catalogue of hundreds of thousands of products is hundreds of MB; with SQLite's default 2 MB
  // page cache every product page read went to read(2) (measured: ~10x slower per indexed read).
  // Memory-mapped reads share the OS page cache across processes; the page cache covers writes.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 1073741824');
  // Before the read workers open it, so none of them loads the samples either.
  dropStat4Samples(sqlite);
  // Reads that must not stall the process carry a deadline (db/query-budget.ts).
  registerTimeBudgetFunction(sqlite);
  const dialect = new CachedSqliteDialect(sqlite);
  const db = new Kysely<Database>({ dialect });
  // An in-memory database is private to its connection: another thread could not see it.
  const readDb =
    readWorkers > 0 && file !== ':memory:'
      ? new Kysely<Database>({ dialect: new SqliteReadPoolDialect(new SqliteReadPool(file, readWorkers)) })
      : db;
  const pingStatement = sqlite.prepare('select 1').pluck();
  return readingItself({
    db,
    readDb,
    engine: 'sqlite',
    sqlite,
    ping: () => {
      // Behind an open transaction as every read outside it waits (and fails on one left idle too long).
      if (dialect.driver.busy) return dialect.driver.select('select 1', []).then(() => undefined);
      try {
        pingStatement.get();
        return PINGED;
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    select: (sql, parameters) => dialect.driver.select(sql, parameters),
    // Only the transaction's own code holds its Transaction object, and the driver runs one
    // transaction at a time, so a statement on it belongs to the open transaction.
    selectOn: (on, sql, parameters) =>
      on.isTransaction ? dialect.driver.selectInTransaction(sql, parameters) : dialect.driver.select(sql, parameters),
    connections: () => ({
      open: sqlite.open ? 1 : 0,
      idle: sqlite.open && !dialect.driver.busy ? 1 : 0,
      waiting: dialect.driver.waitingTransactions,
      max: 1,
    }),
    close: async () => {
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
      // Kysely closes its driver only once a query has started it; a handle used for pings alone has not.
      if (sqlite.open) sqlite.close();
    },
  });
}

/** A handle whose `replicaReads` is itself: no replica, or the replica view. */
function readingItself(handle: Omit<DatabaseHandle, 'replicaReads'>): DatabaseHandle {
  const whole = handle as DatabaseHandle;
  whole.replicaReads = whole;
  return whole;
}

/**
 * A client whose connecting, and only that, times out. The pool's own connectionTimeoutMillis would
 * also fail a caller that waits its turn for a busy pool's connection, as callers under load do.
 */
function clientConnectingWithin(connectTimeoutMs: number): typeof pg.Client {
  class TimedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  }
  // pg's own words for it are "timeout expired": said here what did not answer, and which setting waited.
  const connect = pg.Client.prototype.connect as (this: pg.Client, callback: (err: Error | null) => void) => void;
  TimedClient.prototype.connect = function (this: TimedClient, callback?: (err: Error | null, client?: pg.Client) => void) {
    const connected = new Promise<pg.Client>((resolve, reject) =>
      connect.call(this, (err) => {
        if (err === null || err === undefined) return resolve(this);
        if (err.message === 'timeout expired')
          err.message = `the database server at ${this.host}:${this.port} did not answer within ${connectTimeoutMs} ms (DATABASE_CONNECT_TIMEOUT_MS)`;
        reject(err);
      }),
    );
    if (callback === undefined) return connected;
    connected.then(
      (client) => callback(null, client),
      (err: Error) => callback(err),
    );
  } as typeof pg.Client.prototype.connect;
  return TimedClient;
}

function newPool(url: string, connectTimeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_MAX,
    Client: clientConnectingWithin(connectTimeoutMs),
    // Timestamps (Unix milliseconds) and counts are int8; they fit a JS number exactly.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server emits 'error'; without a listener that would crash the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * Named statements each connection keeps at most (StatementNames), about 50 KB of the server's
 * memory each once planned: the 40-odd prepared queries and the list lengths of the card and
 * basket reads met first (one text per length). Texts past it run unnamed, planned per run.
 */
const MAX_NAMED_STATEMENTS = 300;

/**
 * A handle on PostgreSQL whose statements outside transactions go where `source` sends them; `pool` is the primary's.
 * `names`: those of its prepared queries' statements, shared by the handles on one pool (see openPostgres).
 */
function postgresHandle(source: PoolSource, pool: pg.Pool, names: StatementNames | undefined): Omit<DatabaseHandle, 'replicaReads'> {
  const db = new Kysely<Database>({ dialect: new PoolQueryPostgresDialect(source) });
  const select = async <R>(sql: string, parameters: readonly unknown[]) =>
    (await namedQuery(source.forStatement(sql), sql, parameters, names)).rows as R[];
  return {
    db,
    readDb: db,
    engine: 'postgres',
    select,
    ping: async () => {
      await select('select 1', []);
    },
    // A transaction's queries must go to its client: Kysely's executor of the transaction, with the SQL already compiled.
    selectOn: async <R>(on: Db, sql: string, parameters: readonly unknown[]) =>
      on.isTransaction ? (await on.executeQuery<R>(CompiledQuery.raw(sql, [...parameters]))).rows : select<R>(sql, parameters),
    connections: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: POOL_MAX }),
    close: async () => {
      await db.destroy();
      // Kysely stops its driver's source only once a query has started it; prepared queries and pings go to the pool itself.
      await source.stop();
    },
  };
}

function openPostgres(
  url: string,
  replica: ReplicaOptions | undefined,
  preparedStatements: boolean,
  connectTimeoutMs: number,
): DatabaseHandle {
  const pool = newPool(url, connectTimeoutMs);
  // One name per text for the handle and its replica view: both send statements to the primary's
  // connections, which would otherwise keep each text twice, past MAX_NAMED_STATEMENTS.
  const names = preparedStatements ? statementNames(MAX_NAMED_STATEMENTS) : undefined;
  const primary = postgresHandle(singlePool(pool), pool, names);
  if (!replica) {
    return readingItself(primary);
  }
  const router = replicaRouter(pool, newPool(replica.url, connectTimeoutMs), { maxLagMs: replica.maxLagMs });
  const routed = postgresHandle(router, pool, names);
  const replicaReads = readingItself({ ...routed, replicaUsable: router.replicaUsable, seesPrimaryWal: router.seesPrimaryWal });
  return {
    ...primary,
    replicaReads,
    replicaUsable: router.replicaUsable,
    close: async () => {
      await routed.close();
      await primary.close();
    },
  };
}
