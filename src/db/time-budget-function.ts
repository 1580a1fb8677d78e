import { performance } from 'node:perf_hooks';
import type BetterSqlite3 from 'better-sqlite3';

// The SQLite side of the query time budget (query-budget.ts explains it), apart so that
// database.ts can register it without importing the budget's helpers.

export const TIME_BUDGET_FUNCTION = 'within_time_budget';

export class QueryBudgetExceeded extends Error {
  constructor() {
    super('query time budget exceeded');
    this.name = 'QueryBudgetExceeded';
  }
}

/**
 * Registers within_time_budget(deadline, row) on a SQLite connection: 1 until performance.now()
 * passes `deadline`, then it throws, and better-sqlite3 aborts the statement with that error.
 * Non-deterministic, so SQLite calls it for each row rather than once per statement.
 */
export function registerTimeBudgetFunction(sqlite: BetterSqlite3.Database): void {
  // Two parameters (better-sqlite3 takes the arity from the function): the row makes SQLite call it inside the row loop.
  sqlite.function(TIME_BUDGET_FUNCTION, { deterministic: false }, (deadline: unknown, _row: unknown) => {
    if (typeof deadline === 'number' && performance.now() > deadline) throw new QueryBudgetExceeded();
    return 1;
  });
}
