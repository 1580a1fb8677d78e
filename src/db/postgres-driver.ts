import type pg from 'pg';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { dbStatementSeconds } from '../infra/metrics/process-metrics.js';
import { quoteName } from './quote-name.js';

/** Where a dialect's queries go: one pool, or a choice made per statement (db/replica-routing.ts). */
export interface PoolSource {
  /** The pool for one statement outside a transaction. */
  forStatement(sql: string): pg.Pool;
  /** The pool a transaction takes its client from (a read-only one may go to a replica). */
  forTransaction(readOnly: boolean): pg.Pool;
  /** Ends what this source owns when its Kysely instance is destroyed. */
  stop(): Promise<void>;
}

/** The pool itself as a source: destroying the Kysely instance ends it. */
export function singlePool(pool: pg.Pool): PoolSource {
  return { forStatement: () => pool, forTransaction: () => pool, stop: async () => void (pool.ended || (await pool.end())) };
}

/** Round trips of statements on PostgreSQL, for /metrics. */
const postgresStatementTime = dbStatementSeconds.series('postgres');

/** One statement on a pool or a client, its round trip timed for /metrics (the driver's and the prepared-query path). */
export async function timedQuery(runner: pg.Pool | pg.PoolClient, sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
  const started = performance.now();
  try {
    return await runner.query(sql, parameters as unknown[]);
  } finally {
    postgresStatementTime.observe((performance.now() - started) / 1000);
  }
}

/**
 * A Kysely dialect for node-postgres that runs a query outside a transaction with `pool.query`
 * (one round trip, the client returned at once) and checks a client out only for a transaction.
 * Kysely's stock driver checks a client out and back in around every single query.
 */
export class PoolQueryPostgresDialect implements Dialect {
  constructor(private readonly pool: PoolSource) {}
  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PoolQueryPostgresDriver(this.pool);
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PoolQueryPostgresDriver implements Driver {
  constructor(private readonly pool: PoolSource) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PostgresConnection(this.pool);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const client = await (connection as PostgresConnection).checkOut(settings.accessMode === 'read only');
    let sql = 'begin';
    if (settings.isolationLevel) sql += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) sql += ` ${settings.accessMode}`;
    await client.query(sql);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${quoteName(name)}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint "${quoteName(name)}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint "${quoteName(name)}"`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresConnection).checkIn();
  }

  async destroy(): Promise<void> {
    await this.pool.stop();
  }
}

class PostgresConnection implements DatabaseConnection {
  private client: pg.PoolClient | undefined;

  constructor(private readonly pool: PoolSource) {}

  async checkOut(readOnly: boolean): Promise<pg.PoolClient> {
    this.client ??= await this.pool.forTransaction(readOnly).connect();
    return this.client;
  }

  checkIn(): void {
    this.client?.release();
    this.client = undefined;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await timedQuery(this.client ?? this.pool.forStatement(query.sql), query.sql, query.parameters);
    const changed = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command);
    return {
      numAffectedRows: changed ? BigInt(result.rowCount ?? 0) : undefined,
      rows: (result.rows ?? []) as R[],
    };
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // Streams that must run in constant memory page by keyset in their repository instead.
    yield await this.executeQuery<R>(query);
  }
}
