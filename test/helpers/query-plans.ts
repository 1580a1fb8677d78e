import { CompiledQuery, type Kysely, type KyselyPlugin } from 'kysely';
import { isPostgres } from '../../src/db/row-lock.js';
import type { Database } from '../../src/db/schema.js';

// Query plans of the statements the code runs: a handle that records each statement compiled (with
// its parameters), and the engine's plan of one. On PostgreSQL sequential scans are off while it is
// explained, as on a large table: a small test table is otherwise read whole whatever its indexes.

/** A handle on `db` that keeps every statement run through it, compiled. */
export function recordingStatements(db: Kysely<Database>): { db: Kysely<Database>; statements: CompiledQuery[] } {
  const statements: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      statements.push(db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { db: db.withPlugin(plugin), statements };
}

/** The engine's plan of the statement, one line a step (SQLite: EXPLAIN QUERY PLAN's details). */
export async function planOfStatement(db: Kysely<Database>, statement: CompiledQuery): Promise<string> {
  const sqlite = !isPostgres(db);
  return db.connection().execute(async (connection) => {
    if (!sqlite) await connection.executeQuery(CompiledQuery.raw('set enable_seqscan = off'));
    try {
      const explained = await connection.executeQuery<Record<string, string>>({
        ...statement,
        sql: `${sqlite ? 'explain query plan' : 'explain'} ${statement.sql}`,
      });
      return explained.rows.map((row) => (sqlite ? row.detail : row['QUERY PLAN'])).join('\n');
    } finally {
      if (!sqlite) await connection.executeQuery(CompiledQuery.raw('reset enable_seqscan'));
    }
  });
}
