import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { dbStatementSeconds } from '../infra/metrics/process-metrics.js';
import { quoteName } from './quote-name.js';
import { inlineLimits } from './sqlite-limits.js';

/**
 * A Kysely dialect for better-sqlite3 that is fast where Kysely's stock driver is slow:
 * - prepared statements are cached by SQL text (the stock driver prepares every query anew);
 * - a query outside a transaction runs at once instead of queueing behind a mutex.
 * better-sqlite3 is synchronous, so a single statement can never interleave with another. The one
 * thing to guard is a transaction that spans awaits: while it is open, queries from elsewhere wait
 * for it to end so they do not run inside it.
 */
export class CachedSqliteDialect implements Dialect {
  readonly driver: CachedSqliteDriver;
  constructor(database: BetterSqlite3.Database) {
    this.driver = new CachedSqliteDriver(database);
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return this.driver;
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
}

const STATEMENT_CACHE_LIMIT = 1000;

/**
 * How long the open transaction may run no statement while queries wait for it. A transaction's
 * code that awaits a query on the outer handle waits for that query, which waits for the
 * transaction to end: nothing moves, and every request of the process waits behind them for ever
 * (a gift-card removal once did this). Past this, the waiting queries fail instead, the culprit
 * among them, so its transaction rolls back and the process goes on; the error names the mistake.
 * A transaction's own work issues statements, and nothing else should keep SQLite's one
 * connection idle that long (a test shortens it).
 */
export const idleTransaction = { limitMs: 10_000 };

export class IdleTransactionError extends Error {
  constructor(idleMs: number) {
    super(
      `Waited for an open transaction that ran no statement for ${Math.round(idleMs)} ms: ` +
        'its code is probably awaiting a query on the outer handle (run that on the transaction, or before or after it)',
    );
    this.name = 'IdleTransactionError';
  }
}
const statementTime = dbStatementSeconds.series('sqlite');

export class CachedSqliteDriver implements Driver {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly rowStatements = new Map<string, RowStatement>();
  /** Resolves when the open transaction ends; undefined while none is open. */
  private transactionDone: Promise<void> | undefined;
  private endTransaction: (() => void) | undefined;
  /** Transactions waiting for the open one to end: SQLite's counterpart of a pool's waiting clients. */
  waitingTransactions = 0;
  /** When the last statement ran (performance.now()): while a transaction is open, one of its own. */
  private lastStatementAt = 0;

  constructor(private readonly database: BetterSqlite3.Database) {}

  /** Whether a transaction holds the connection now. */
  get busy(): boolean {
    return this.transactionDone !== undefined;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // Kysely asks for a connection before it says whether it will open a transaction, so each caller
    // gets a handle of its own that can become the transaction's owner.
    return new SqliteConnection(this, false);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.transactionDone) {
      this.waitingTransactions += 1;
      try {
        while (this.transactionDone) await this.untilTransactionEnds();
      } finally {
        this.waitingTransactions -= 1;
      }
    }
    this.transactionDone = new Promise((resolve) => (this.endTransaction = resolve));
    (connection as SqliteConnection).ownsTransaction = true;
    try {
      this.run(CompiledQuery.raw('begin immediate'));
    } catch (error) {
      // SQLITE_BUSY past busy_timeout (another process holds the write lock): Kysely rolls back only a
      // transaction that began, so the connection is let go here, or every later query would wait for it.
      this.release(connection as SqliteConnection);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      this.run(CompiledQuery.raw('commit'));
    } finally {
      this.release(connection as SqliteConnection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      if (this.database.inTransaction) this.run(CompiledQuery.raw('rollback'));
    } finally {
      this.release(connection as SqliteConnection);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${quoteName(name)}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${quoteName(name)}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release "${quoteName(name)}"`));
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    // As a PostgreSQL pool's end waits for its checked-out clients, an open transaction ends as it
    // would have before the file closes; one left idle past the limit is closed on.
    if (this.transactionDone) await this.untilTransactionEnds().catch(() => undefined);
    this.statements.clear();
    this.rowStatements.clear();
    if (this.database.open) this.database.close();
  }

  /** Waits while another handle's transaction is open, so a plain query never joins it. */
  waitFor(connection: SqliteConnection): Promise<void> | undefined {
    return connection.ownsTransaction || !this.transactionDone ? undefined : this.untilTransactionEnds();
  }

  /** The open transaction's end; an IdleTransactionError once it has run no statement for idleTransaction.limitMs. */
  private untilTransactionEnds(): Promise<void> {
    const done = this.transactionDone ?? Promise.resolve();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        const idle = performance.now() - this.lastStatementAt;
        if (idle >= idleTransaction.limitMs) reject(new IdleTransactionError(idle));
        else timer = setTimeout(check, idleTransaction.limitMs - idle + 1);
      };
      check();
      void done.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Runs a read outside any transaction on the cached statement, with nothing in between: the
   * path of prepared queries (db/prepared.ts). Waits only while a transaction is open.
   */
  select<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    if (this.transactionDone) return this.untilTransactionEnds().then(() => this.select<R>(sql, parameters));
    return this.runStatement<R>(sql, parameters);
  }

  /**
   * Runs a statement of the open transaction at once on the cached statement (db/prepared.ts's
   * `.on(trx)`). Refuses when no transaction is open, so a query meant for a transaction never
   * runs on its own by mistake.
   */
  selectInTransaction<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    if (!this.transactionDone) return Promise.reject(new Error('selectInTransaction: no transaction is open'));
    return this.runStatement<R>(sql, parameters);
  }

  /** A read's rows; a write's RETURNING rows (none without one). */
  private runStatement<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    const started = performance.now();
    try {
      const query = inlineLimits(sql, parameters);
      const { statement, toRow } = this.rowStatement(query.sql);
      const values = toSqliteValues(query.parameters);
      if (!toRow) {
        statement.run(values);
        return Promise.resolve([]);
      }
      const rows = statement.all(values) as unknown[][];
      const result = new Array<R>(rows.length);
      for (let index = 0; index < rows.length; index += 1) result[index] = toRow(rows[index]!) as R;
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.lastStatementAt = performance.now();
      statementTime.observe((this.lastStatementAt - started) / 1000);
    }
  }

  /**
   * The prepared path's statements, apart from the ones Kysely's path shares: a reader returns its
   * rows as arrays and a function made for its columns turns each into an object. better-sqlite3
   * builds row objects through V8's API, property by property; an object literal of one shape is
   * several times cheaper (measured: 10 rows of 25 columns, 79 -> 52 µs).
   */
  private rowStatement(sql: string): RowStatement {
    let entry = this.rowStatements.get(sql);
    if (entry === undefined) {
      const statement = this.database.prepare(sql);
      entry = { statement, toRow: statement.reader ? rowMaker(statement.raw(true).columns()) : undefined };
      if (this.rowStatements.size >= STATEMENT_CACHE_LIMIT) dropOldest(this.rowStatements);
      this.rowStatements.set(sql, entry);
    }
    return entry;
  }

  run<R>(query: CompiledQuery): QueryResult<R> {
    const started = performance.now();
    try {
      const inlined = inlineLimits(query.sql, query.parameters);
      const statement = this.prepare(inlined.sql);
      const parameters = toSqliteValues(inlined.parameters);
      if (statement.reader) return { rows: statement.all(parameters) as R[] };
      const { changes, lastInsertRowid } = statement.run(parameters);
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    } finally {
      this.lastStatementAt = performance.now();
      statementTime.observe((this.lastStatementAt - started) / 1000);
    }
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      // Queries are built from code, and a query's LIMITs give it a few texts at most (sqlite-limits.ts),
      // so the set of SQL texts is bounded; past the limit the oldest statement goes (it is prepared
      // again if it comes back), not every statement of the process at once.
      if (this.statements.size >= STATEMENT_CACHE_LIMIT) dropOldest(this.statements);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private release(connection: SqliteConnection): void {
    if (!connection.ownsTransaction) return;
    connection.ownsTransaction = false;
    const end = this.endTransaction;
    this.transactionDone = undefined;
    this.endTransaction = undefined;
    end?.();
  }
}

/** Drops a Map's first-inserted entry: the statement caches' eviction. */
export function dropOldest<K, V>(map: Map<K, V>): void {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
}

interface RowStatement {
  statement: BetterSqlite3.Statement;
  /** Undefined for a statement that returns no rows. */
  toRow: ((values: unknown[]) => unknown) | undefined;
}

/**
 * A function from a row's values to an object keyed by the column names, as better-sqlite3 would
 * make it (a later column of the same name wins). The names are quoted as computed keys, so no
 * column name can be code or set a prototype.
 */
export function rowMaker(columns: ReadonlyArray<{ name: string }>): (values: unknown[]) => unknown {
  const fields = columns.map((column, index) => `[${JSON.stringify(column.name)}]: values[${index}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => unknown;
}

class SqliteConnection implements DatabaseConnection {
  constructor(
    private readonly driver: CachedSqliteDriver,
    public ownsTransaction: boolean,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let wait = this.driver.waitFor(this);
    while (wait) {
      await wait;
      wait = this.driver.waitFor(this);
    }
    return this.driver.run<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // An open better-sqlite3 iterator blocks the connection for everyone, so a stream is read
    // whole and handed out in one piece; callers that need constant memory page by keyset.
    yield await this.executeQuery<R>(query);
  }
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null; SQLite has no boolean or date. */
export function toSqliteValues(values: readonly unknown[]): unknown[] {
  // Most queries bind neither, so the copy is made only when one needs converting.
  if (!values.some((value) => typeof value === 'boolean' || value instanceof Date)) return values as unknown[];
  return values.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value instanceof Date ? value.getTime() : value));
}
