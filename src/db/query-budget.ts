import { performance } from 'node:perf_hooks';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db, DatabaseHandle } from './database.js';
import { QueryBudgetExceeded, TIME_BUDGET_FUNCTION } from './time-budget-function.js';

export { QueryBudgetExceeded };

// A time budget for the reads of one request. better-sqlite3 runs a statement synchronously on
// the event loop and has no statement timeout, progress handler or interrupt (WiseLibs/better-sqlite3
// #568, #707), so a slow read stalls every other request of the process. What it does have is
// user-defined functions called from inside the statement: `within_time_budget(deadline, row)` is
// non-deterministic (SQLite calls it for every row it reaches, never once for the statement) and
// throws once the clock passes the deadline, which aborts the statement. A query that wants the
// budget puts budgetCondition() in the WHERE of its row loops; `row & 63` calls the function for
// one row in 64 only (a JS call costs about 70 ns a row, a 4x slowdown on a bare scan; gated, it
// is ~1.4x there and lost in the noise of a real search). PostgreSQL runs queries in its own
// process, so the event loop is not stalled, but the same budget bounds its work: the reads run in
// a transaction with `statement_timeout` set locally to what is left of the budget.

/** PostgreSQL's query_canceled: statement_timeout fired. */
const QUERY_CANCELED = '57014';

/** The reads of one request may take this long, together; a read past the deadline fails with QueryBudgetExceeded. */
export interface QueryBudget {
  /** performance.now() at which reads stop. */
  readonly deadline: number;
  /**
   * Milliseconds the budgeted SQLite reads took so far (what a per-address limit charges): the
   * event loop's time, or with a read pool the pool's, which every shopper's lists and searches
   * share; 0 on PostgreSQL, whose server has its own pool of processes.
   */
  blockedMs: number;
}

export function startBudget(ms: number): QueryBudget {
  return { deadline: performance.now() + ms, blockedMs: 0 };
}

/**
 * The WHERE condition that aborts a SQLite statement past the budget, checked on the rows of the
 * loop `row` (an integer column, usually an id) belongs to; undefined where no condition is needed
 * (PostgreSQL, or no budget).
 */
export function budgetCondition(database: Pick<DatabaseHandle, 'engine'>, budget: QueryBudget | undefined, row: string) {
  if (!budget || database.engine !== 'sqlite') return undefined;
  const ref = sql.ref(row);
  return sql<SqlBool>`((${ref} & 63) <> 0 or ${sql.raw(TIME_BUDGET_FUNCTION)}(${budget.deadline}, ${ref}) = 1)` as RawBuilder<SqlBool>;
}

/**
 * Runs `work` within what is left of the budget (on SQLite adding the time it took to `budget.blockedMs`).
 * On SQLite the work runs on the read handle (db/database.ts; its queries carry budgetCondition()); on
 * PostgreSQL in a transaction whose statement_timeout is what is left. Throws QueryBudgetExceeded
 * when the budget is gone, before or during the work.
 */
export async function withinBudget<T>(database: DatabaseHandle, budget: QueryBudget | undefined, work: (db: Db) => Promise<T>): Promise<T> {
  if (!budget) return work(database.readDb);
  const started = performance.now();
  const left = Math.floor(budget.deadline - started);
  if (left <= 0) throw new QueryBudgetExceeded();
  try {
    if (database.engine === 'sqlite') return await work(database.readDb);
    // Read only: a replica may serve it (db/replica-routing.ts).
    return await database.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        await sql`select set_config('statement_timeout', ${String(left)}, true)`.execute(trx);
        return work(trx);
      });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === QUERY_CANCELED) throw new QueryBudgetExceeded();
    throw error;
  } finally {
    if (database.engine === 'sqlite') budget.blockedMs += performance.now() - started;
  }
}
