import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { dropOldest, rowMaker } from './sqlite-driver.js';
import { inlineLimits } from './sqlite-limits.js';
import { QueryBudgetExceeded, TIME_BUDGET_FUNCTION } from './time-budget-function.js';
import { READ_WORKER_SOURCE, type ReadAnswer, type ReadRequest, type ReadWorkerData } from './sqlite-read-worker.js';

// Reads that can be slow (lists, search, facets, exports) on read-only better-sqlite3 connections
// in worker threads. better-sqlite3 is synchronous: on the main thread a 100 ms read holds every
// other request for 100 ms. WAL lets these connections read while the main one writes, each
// statement seeing what was committed when it started, so a read made after a request's own
// write committed (better-sqlite3 commits synchronously) sees that write.

/** A worker's nice value (Linux): on a shared core the event loop gets ~80-90 % of it against busy readers. */
const READER_NICENESS = 10;

interface Job extends ReadRequest {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

interface Reader {
  worker: Worker;
  job: Job | undefined;
}

export class SqliteReadPool {
  private readonly readers: Reader[] = [];
  private readonly queue: Job[] = [];
  private readonly rowMakers = new Map<string, (values: unknown[]) => unknown>();
  private readonly workerData: ReadWorkerData;
  private closed = false;

  constructor(
    file: string,
    private readonly size: number,
  ) {
    this.workerData = {
      file,
      betterSqlite3: createRequire(import.meta.url).resolve('better-sqlite3'),
      timeOrigin: performance.timeOrigin,
      budgetFunction: TIME_BUDGET_FUNCTION,
      niceness: READER_NICENESS,
    };
  }

  /** The rows of a read, as better-sqlite3 would give them on the main connection. */
  read<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    if (this.closed) return Promise.reject(new Error('the read pool is closed'));
    return new Promise<R[]>((resolve, reject) => {
      // As on the main connection: a bound LIMIT would compile the worker's statement again on every run.
      const query = inlineLimits(sql, parameters);
      this.queue.push({ sql: query.sql, parameters: query.parameters as unknown[], resolve: resolve as (rows: unknown[]) => void, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the read pool is closed'));
    await Promise.all(this.readers.splice(0).map((reader) => reader.worker.terminate()));
  }

  /** Hands queued jobs to idle readers, starting readers (up to the size) on first need. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let reader = this.readers.find((candidate) => candidate.job === undefined);
      if (!reader && this.readers.length < this.size) reader = this.start();
      if (!reader) return;
      const job = this.queue.shift()!;
      reader.job = job;
      reader.worker.postMessage({ sql: job.sql, parameters: job.parameters } satisfies ReadRequest);
    }
  }

  private start(): Reader {
    const worker = new Worker(READ_WORKER_SOURCE, { eval: true, workerData: this.workerData });
    // An idle pool must not keep a finished process (a CLI command, a test run) alive.
    worker.unref();
    const reader: Reader = { worker, job: undefined };
    worker.on('message', (answer: ReadAnswer) => {
      const job = reader.job;
      reader.job = undefined;
      if (job) this.settle(job, answer);
      this.dispatch();
    });
    const lost = (error: Error) => {
      const index = this.readers.indexOf(reader);
      if (index >= 0) this.readers.splice(index, 1);
      reader.job?.reject(error);
      reader.job = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`a read-pool worker exited (${code})`)));
    this.readers.push(reader);
    return reader;
  }

  private settle(job: Job, answer: ReadAnswer): void {
    if ('error' in answer) {
      const { name, message, code } = answer.error;
      if (name === 'QueryBudgetExceeded') return job.reject(new QueryBudgetExceeded());
      return job.reject(Object.assign(new Error(message), { code }));
    }
    let toRow = this.rowMakers.get(job.sql);
    if (toRow === undefined) {
      toRow = rowMaker(answer.columns.map((name) => ({ name })));
      if (this.rowMakers.size >= 1000) dropOldest(this.rowMakers);
      this.rowMakers.set(job.sql, toRow);
    }
    const rows = new Array<unknown>(answer.rows.length);
    for (let index = 0; index < rows.length; index += 1) rows[index] = toRow(answer.rows[index]!);
    job.resolve(rows);
  }
}
