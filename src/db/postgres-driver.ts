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

/**
 * One statement on a pool or a client, its round trip timed for /metrics (the driver's and the
 * prepared-query path). With a `name` it is a named statement: each connection parses it once and
 * keeps its plan (see statementNames).
 */
export async function timedQuery(
  runner: pg.Pool | pg.PoolClient,
  sql: string,
  parameters: readonly unknown[],
  name?: string,
): Promise<pg.QueryResult> {
  const started = performance.now();
  try {
    return await (name === undefined
      ? runner.query(sql, parameters as unknown[])
      : runner.query({ name, text: sql, values: parameters as unknown[] }));
  } finally {
    postgresStatementTime.observe((performance.now() - started) / 1000);
  }
}

/** The names a process gives its statements: distinct per StatementNames, so two of them never give one name two texts. */
let namings = 0;

/**
 * Names for the statements of prepared queries (db/prepared.ts). An unnamed statement is parsed and
 * planned on every run, and a cold product page's one statement took 3-5 ms to plan against 0.5 ms
 * to run on 200,000 products; a named one is parsed once per connection, and PostgreSQL keeps its
 * plan (a generic one after five runs when that is no dearer). `max` bounds the statements each
 * connection keeps; texts past it run unnamed.
 */
export interface StatementNames {
  /** The name of the text, or undefined when it runs unnamed. */
  of(sql: string): string | undefined;
  /** A new name for the text, whose kept statement can no longer run (see namedQuery). */
  renew(sql: string): string;
}

export function statementNames(max: number): StatementNames {
  const prefix = `s${(namings += 1)}_`;
  const names = new Map<string, string>();
  let count = 0;
  const fresh = (sql: string) => {
    const name = `${prefix}${(count += 1)}`;
    names.set(sql, name);
    return name;
  };
  return {
    of: (sql) => names.get(sql) ?? (names.size < max ? fresh(sql) : undefined),
    renew: fresh,
  };
}

/** PostgreSQL's "cached plan must not change result type", told by the routine that raises it (the text is translated with lc_messages). */
const isChangedResultType = (error: unknown) =>
  (error as { code?: unknown }).code === '0A000' && (error as { routine?: unknown }).routine === 'RevalidateCachedQuery';

/**
 * A prepared query's statement by its name when it has one. A table changed under a kept plan in a
 * way that changes its rows (a column added by a migration while this process runs: PostgreSQL's
 * 0A000 "cached plan must not change result type") is prepared again under a new name, once.
 */
export async function namedQuery(
  runner: pg.Pool,
  sql: string,
  parameters: readonly unknown[],
  names: StatementNames | undefined,
): Promise<pg.QueryResult> {
  const name = names?.of(sql);
  if (name === undefined) return timedQuery(runner, sql, parameters);
  try {
    return await timedQuery(runner, sql, parameters, name);
  } catch (error) {
    // Raised before the statement runs, so a write is not done twice.
    if (!isChangedResultType(error)) throw error;
    return timedQuery(runner, sql, parameters, names!.renew(sql));
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
