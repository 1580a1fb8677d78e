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

/** What a statement read of a table when it ran, from PostgreSQL's EXPLAIN (ANALYZE, FORMAT JSON). */
export interface RowsRead {
  /** Every row (or index entry) the steps on the table produced or filtered out, over all their loops. */
  total: number;
  /** The most one step read in one loop (one group's count, say). */
  mostInOneLoop: number;
  /** The steps on the table: node, index, rows a loop and loops. */
  steps: string[];
}

interface AnalyzedNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: AnalyzedNode[];
}

/**
 * Runs the statement under EXPLAIN (ANALYZE, FORMAT JSON) (PostgreSQL only), in a transaction after
 * the `set local` statements it ran after (as the code ran it), and sums the rows its steps on
 * `table` read: the scans of the table and of its indexes (a bitmap's index scan and its heap scan
 * both count, so a bound holds for either). Actual rows, not time: a bound on them holds on any machine.
 */
export async function rowsReadOfStatement(
  db: Kysely<Database>,
  statement: CompiledQuery,
  table: string,
  settings: readonly CompiledQuery[] = [],
): Promise<RowsRead> {
  if (!isPostgres(db)) throw new Error('rowsReadOfStatement: PostgreSQL only');
  const { rows } = await db.transaction().execute(async (trx) => {
    for (const setting of settings) await trx.executeQuery(setting);
    return trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: AnalyzedNode }> | string }>({
      ...statement,
      sql: `explain (analyze, format json) ${statement.sql}`,
    });
  });
  const raw = rows[0]!['QUERY PLAN'];
  const root = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: AnalyzedNode }>;
  const read: RowsRead = { total: 0, mostInOneLoop: 0, steps: [] };
  const visit = (node: AnalyzedNode, underTable: boolean) => {
    const onTable = node['Relation Name'] === table || (underTable && node['Node Type'] === 'Bitmap Index Scan');
    if (onTable) {
      const perLoop = node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      read.total += perLoop * node['Actual Loops'];
      read.mostInOneLoop = Math.max(read.mostInOneLoop, perLoop);
      read.steps.push(
        `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}: ${perLoop} rows x ${node['Actual Loops']} loops`,
      );
    }
    for (const child of node.Plans ?? []) visit(child, node['Relation Name'] === table);
  };
  visit(root[0]!.Plan, false);
  return read;
}
