import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import { PoolQueryPostgresDialect, postgresStatementTime } from './postgres-driver.js';
import type { Database } from './schema.js';
import { CachedSqliteDialect } from './sqlite-driver.js';
import { registerTimeBudgetFunction } from './time-budget-function.js';

export type Engine = 'sqlite' | 'postgres';

/** The database or an open transaction: what every repository function takes first. */
export type Db = Kysely<Database> | Transaction<Database>;

export interface DatabaseHandle {
  db: Kysely<Database>;
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
  /** The connections now, for /metrics: the pool's on PostgreSQL; SQLite's one connection and the transactions waiting for it. */
  connections(): ConnectionStats;
  close(): Promise<void>;
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
const POOL_MAX = 10;

export function createDatabase(url: string): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url);
  throw new Error(`Unsupported database URL "${url}": use sqlite:<file>, sqlite::memory: or postgres://...`);
}

function openSqlite(location: string): DatabaseHandle {
  const file = location === ':memory:' || location === '' ? ':memory:' : location;
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
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
  // Reads that must not stall the process carry a deadline (db/query-budget.ts).
  registerTimeBudgetFunction(sqlite);
  const dialect = new CachedSqliteDialect(sqlite);
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    engine: 'sqlite',
    sqlite,
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
    close: () => db.destroy(),
  };
}

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_MAX,
    // Timestamps (Unix milliseconds) and counts are int8; they fit a JS number exactly.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server emits 'error'; without a listener that would crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PoolQueryPostgresDialect(pool) });
  const select = async <R>(sql: string, parameters: readonly unknown[]) => {
    const started = performance.now();
    try {
      return (await pool.query(sql, parameters as unknown[])).rows as R[];
    } finally {
      postgresStatementTime.observe((performance.now() - started) / 1000);
    }
  };
  return {
    db,
    engine: 'postgres',
    select,
    // A transaction's queries must go to its client: Kysely's executor of the transaction, with the SQL already compiled.
    selectOn: async <R>(on: Db, sql: string, parameters: readonly unknown[]) =>
      on.isTransaction ? (await on.executeQuery<R>(CompiledQuery.raw(sql, [...parameters]))).rows : select<R>(sql, parameters),
    connections: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: POOL_MAX }),
    close: () => db.destroy(),
  };
}
