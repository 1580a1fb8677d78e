// The code of a read-pool worker thread (sqlite-read-pool.ts), as a string run with `eval: true`.
// A worker file of its own would be `.ts` under tsx and vitest and `.js` in dist/, and Node 20
// cannot start a worker on a `.ts` file; a string runs the same everywhere. It is plain CommonJS
// JavaScript and requires only better-sqlite3 (by the path the main thread resolved) and node: modules.

import { LOWER_OWN_PRIORITY_SOURCE } from '../infra/thread-priority.js';
/** What the main thread hands each worker. */
export interface ReadWorkerData {
  /** The database file (never `:memory:`, which a second connection cannot see). */
  file: string;
  /** require.resolve('better-sqlite3') of the main thread. */
  betterSqlite3: string;
  /** The main thread's performance.timeOrigin: budget deadlines are on its clock. */
  timeOrigin: number;
  /** The name of the time-budget SQL function (time-budget-function.ts). */
  budgetFunction: string;
  /** os nice value for the thread, so the main thread (the event loop) wins a shared core. */
  niceness: number;
}

/** A request: compiled SQL and its values. */
export interface ReadRequest {
  sql: string;
  parameters: unknown[];
}

/** The answer: the column names and each row's values, or the error that the statement threw. */
export type ReadAnswer = { columns: string[]; rows: unknown[][] } | { error: { name: string; message: string; code?: string } };

export const READ_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const Database = require(workerData.betterSqlite3);

${LOWER_OWN_PRIORITY_SOURCE}

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -65536');
db.pragma('mmap_size = 1073741824');

// Deadlines are the main thread's performance.now(); this thread's clock starts elsewhere.
const offset = performance.timeOrigin - workerData.timeOrigin;
db.function(workerData.budgetFunction, { deterministic: false }, (deadline, _row) => {
  if (typeof deadline === 'number' && performance.now() + offset > deadline) {
    const error = new Error('query time budget exceeded');
    error.name = 'QueryBudgetExceeded';
    throw error;
  }
  return 1;
});

const statements = new Map();
function statementFor(sql) {
  let entry = statements.get(sql);
  if (entry === undefined) {
    const statement = db.prepare(sql);
    if (!statement.reader) throw new Error('the read pool runs reads only: ' + sql.slice(0, 60));
    statement.raw(true);
    entry = { statement, columns: statement.columns().map((column) => column.name) };
    if (statements.size >= 1000) statements.delete(statements.keys().next().value);
    statements.set(sql, entry);
  }
  return entry;
}

parentPort.on('message', ({ sql, parameters }) => {
  try {
    const { statement, columns } = statementFor(sql);
    parentPort.postMessage({ columns, rows: statement.all(parameters) });
  } catch (error) {
    parentPort.postMessage({ error: { name: error && error.name, message: String(error && error.message), code: error && error.code } });
  }
});
`;
