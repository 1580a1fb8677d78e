import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { toSqliteValues } from './sqlite-driver.js';
import type { SqliteReadPool } from './sqlite-read-pool.js';

/**
 * The Kysely dialect of DatabaseHandle.readDb on SQLite: each query runs on the read pool's worker
 * threads. Reads only, and never in a transaction: a transaction's reads belong on its own
 * connection (they must see its writes), so beginning one here is a programming error.
 */
export class SqliteReadPoolDialect implements Dialect {
  constructor(private readonly pool: SqliteReadPool) {}
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new SqliteReadPoolDriver(this.pool);
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
}

class SqliteReadPoolDriver implements Driver {
  private readonly connection: DatabaseConnection;
  constructor(private readonly pool: SqliteReadPool) {
    this.connection = new SqliteReadPoolConnection(pool);
  }
  async init(): Promise<void> {}
  // The pool queues and spreads the queries itself; one stateless connection serves every caller.
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('readDb runs no transactions: open them on DatabaseHandle.db');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.pool.close();
  }
}

class SqliteReadPoolConnection implements DatabaseConnection {
  constructor(private readonly pool: SqliteReadPool) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: await this.pool.read<R>(query.sql, toSqliteValues(query.parameters)) };
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // As on the main connection (sqlite-driver.ts): read whole; callers that need constant memory page by keyset.
    yield await this.executeQuery<R>(query);
  }
}
