import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { JobRow } from './queue.js';
import { causeOfType, PermanentJobFailure, RefusedForGood } from './refused-for-good.js';

export interface JobContext {
  db: Kysely<Database>;
  log: Logger;
  job: { id: number; type: string; attempts: number; createdAt: number };
}

/** Return 'skipped' (or a short string) to record how the job ended; throw to fail the attempt. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler validates its own payload
export type JobHandler = (payload: any, context: JobContext) => Promise<string | void>;
export type JobHandlers = Record<string, JobHandler>;

export interface Worker {
  /** Polls every pollIntervalMs until stop(), running up to `concurrency` jobs at once. */
  start(): void;
  /** Stops polling and waits for the jobs in hand to finish. */
  stop(): Promise<void>;
  /**
   * Runs due jobs one after another until none is due; returns how many ran. With includeDelayed,
   * jobs whose run_at is in the future (backoff) are run too: for tests.
   */
  drain(options?: { includeDelayed?: boolean }): Promise<number>;
}

export interface WorkerOptions {
  database: DatabaseHandle;
  handlers: JobHandlers;
  log: Logger;
  pollIntervalMs: number;
  /**
   * Jobs the polling worker runs at once (default 1). Jobs wait mostly on I/O (a mail server, the
   * back office, the database), and a worker inline in a busy API process waits for its event loop
   * at every step: one job at a time there ran 22 jobs a second while checkouts queued 70
   * (bench/soak.ts). Handlers are safe to run side by side already: any number of worker
   * processes run them.
   */
  concurrency?: number;
  /**
   * How long a claim lasts unless renewed; the worker renews it while the job runs (every third of
   * it), so only a job whose worker died (or hangs without a turn of its event loop) is taken over.
   */
  lockMs?: number;
  backoffMs?: (attempt: number) => number;
  /**
   * The time jobs are claimed, retried, taken over and stamped by: the clock of the app that queues them
   * (jobs are queued at its time, run_at = its now). By the system's while a test moved the app's clock, a
   * month ahead nothing queued "now" came due, and a month behind a mail queued for a later day went at once.
   */
  clock: Clock;
}

const DEFAULT_LOCK_MS = 5 * 60_000;
const LAST_ERROR_LIMIT = 2000;
const RESULT_LIMIT = 100; // the width of job.result

/** min(2^attempt * 10 s, 1 h), half of it random so that jobs failing together do not retry together. */
export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(2 ** attempt * 10_000, 3_600_000);
  return Math.round(base / 2 + (Math.random() * base) / 2);
}

export function createWorker(options: WorkerOptions): Worker {
  const { database, handlers, log, pollIntervalMs } = options;
  const { db } = database;
  const lockMs = options.lockMs ?? DEFAULT_LOCK_MS;
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const now = () => options.clock.now();
  const concurrency = Math.max(1, options.concurrency ?? 1);

  // drain() runs one job at a time, each call behind the one before.
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => {});
    return run;
  };

  /**
   * Claims the next job: first one whose claim expired (its worker died), then the due pending job
   * that waited longest. One UPDATE whose target is the first of two subqueries that each walk one
   * index from its start, instead of one read with an OR whose matches had to be sorted: with a
   * backlog of 100,000 jobs that sort cost 25 ms per claim on SQLite, on the event loop of an API
   * process running its worker inline, so a growing backlog slowed every request and the worker
   * fell further behind (bench/soak.ts).
   */
  async function claim(includeDelayed: boolean): Promise<JobRow | undefined> {
    const at = now();
    // Many workers poll at once: each skips rows another has locked instead of queueing behind it.
    // SQLite has one writer at a time, so the single UPDATE statement is atomic there anyway.
    const lockable = <Q extends SelectQueryBuilder<Database, 'job', { id: number }>>(query: Q) =>
      database.engine === 'postgres' ? query.forUpdate().skipLocked() : query;
    const orphaned = db
      .selectFrom('job')
      .select('id')
      .where('status', '=', 'running')
      .where('locked_until', '<', at)
      .orderBy('locked_until')
      .limit(1);
    const pending = db
      .selectFrom('job')
      .select('id')
      .where('status', '=', 'pending')
      .$if(!includeDelayed, (query) => query.where('run_at', '<=', at))
      .orderBy('run_at')
      .orderBy('id')
      .limit(1);
    return db
      .updateTable('job')
      .set((eb) => ({
        status: 'running',
        attempts: eb('attempts', '+', 1),
        locked_until: at + lockMs,
        updated_at: at,
      }))
      .where('id', '=', (eb) => eb.fn.coalesce(lockable(orphaned), lockable(pending)))
      .returningAll()
      .executeTakeFirst();
  }

  async function run(job: JobRow): Promise<void> {
    const jobLog = log.child({ jobId: job.id, jobType: job.type });
    // A claim counts an attempt, so a take-over past the last one is of a job whose worker stopped
    // during that attempt. Run again, a job that takes its worker down (out of memory, killed at
    // every deploy) would be taken over forever, each time with the other jobs in hand.
    if (job.attempts > job.max_attempts) return giveUp(job, jobLog);
    let result: string | void;
    try {
      const handler = Object.hasOwn(handlers, job.type) ? handlers[job.type] : undefined;
      if (handler === undefined) throw new Error(`no handler for job type "${job.type}"`);
      const context: JobContext = {
        db,
        log: jobLog,
        job: { id: job.id, type: job.type, attempts: job.attempts, createdAt: job.created_at },
      };
      result = await keepingClaim(job, jobLog, () => handler(JSON.parse(job.payload), context));
    } catch (err) {
      const permanent = causeOfType(err, PermanentJobFailure) !== undefined;
      // A refusal a handler made a PermanentJobFailure (around it) is the operators' to see.
      const refusal = permanent ? undefined : causeOfType(err, RefusedForGood);
      if (refusal === undefined) return fail(job, err, jobLog, permanent);
      jobLog.warn({ err, attempts: job.attempts }, 'job refused for good; not retried');
      return finish(job, refusal.result, jobLog, errorMessage(refusal).slice(0, LAST_ERROR_LIMIT));
    }
    await finish(job, result, jobLog);
  }

  async function finish(job: JobRow, result: string | void, jobLog: Logger, lastError?: string): Promise<void> {
    const done = await owned(job)
      .set({
        status: 'done',
        result: typeof result === 'string' ? result.slice(0, RESULT_LIMIT) : null,
        locked_until: null,
        ...(lastError === undefined ? {} : { last_error: lastError }),
        updated_at: now(),
      })
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) jobLog.warn('job finished after its lock expired; another worker took it over');
  }

  /** `permanent`: a PermanentJobFailure, dead at once. */
  async function fail(job: JobRow, err: unknown, jobLog: Logger, permanent: boolean): Promise<void> {
    const message = errorMessage(err).slice(0, LAST_ERROR_LIMIT);
    const at = now();
    if (job.attempts < job.max_attempts && !permanent) {
      const runAt = at + backoffMs(job.attempts);
      await owned(job).set({ status: 'pending', run_at: runAt, locked_until: null, last_error: message, updated_at: at }).execute();
      jobLog.warn({ err, attempts: job.attempts, runAt }, 'job failed; it will be retried');
    } else {
      // Kept, never deleted: an operator can read last_error and `jobs retry` it.
      await owned(job).set({ status: 'dead', locked_until: null, last_error: message, updated_at: at }).execute();
      jobLog.error(
        { err, attempts: job.attempts },
        permanent ? 'job failed for good and is dead' : 'job failed for the last time and is dead',
      );
    }
  }

  async function giveUp(job: JobRow, jobLog: Logger): Promise<void> {
    const message = 'its worker stopped during its last attempt (crashed, killed or cut off from the database); not run again';
    await owned(job)
      .set({ status: 'dead', attempts: job.max_attempts, locked_until: null, last_error: message, updated_at: now() })
      .execute();
    jobLog.error({ attempts: job.max_attempts }, `job is dead: ${message}`);
  }

  /**
   * Runs `work` while renewing the job's claim: a job longer than the lock (a slow mail server, a
   * large hand-off) would otherwise be taken over by another worker and run twice at once. A renewal
   * that finds the claim gone (taken over after a stall) is logged; the outcome is then not recorded.
   */
  async function keepingClaim<T>(job: JobRow, jobLog: Logger, work: () => Promise<T>): Promise<T> {
    let finished = false;
    const renew = setInterval(
      () => {
        owned(job)
          .set({ locked_until: now() + lockMs })
          .executeTakeFirst()
          .then(
            // A renewal landing after the job's outcome finds no running claim: that is no loss.
            (renewed) =>
              !finished &&
              Number(renewed.numUpdatedRows) === 0 &&
              jobLog.warn('job claim lost while running; another worker may take it over'),
            (err: unknown) => jobLog.warn({ err }, 'job claim not renewed; tried again'),
          );
      },
      Math.max(1, Math.floor(lockMs / 3)),
    );
    try {
      return await work();
    } finally {
      finished = true;
      clearInterval(renew);
    }
  }

  // Only the claim this worker holds: if the lock expired and another worker took the job over
  // (attempts went up), this worker's late outcome must not overwrite that one's.
  const owned = (job: JobRow) =>
    db.updateTable('job').where('id', '=', job.id).where('status', '=', 'running').where('attempts', '=', job.attempts);

  const runNext = (includeDelayed: boolean): Promise<boolean> =>
    exclusive(async () => {
      const job = await claim(includeDelayed);
      if (job === undefined) return false;
      await run(job);
      return true;
    });

  let stopped = true;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  /** Waits pollIntervalMs, or less when stop() or a finished job wakes it. */
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollIntervalMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  // One claim at a time, up to `concurrency` jobs running: an idle worker polls once per interval,
  // however many jobs it may run.
  async function poll(): Promise<void> {
    const running = new Set<Promise<void>>();
    while (!stopped) {
      let job: JobRow | undefined;
      try {
        job = await claim(false);
      } catch (err) {
        // A lost database connection must not take the process down; the next poll tries again.
        log.error({ err }, 'job worker could not claim a job');
      }
      if (job !== undefined) {
        const inHand = run(job)
          .catch((err: unknown) => log.error({ err, jobId: job.id }, 'job worker could not record how a job ended'))
          .finally(() => {
            running.delete(inHand);
            wake?.();
          });
        running.add(inHand);
      }
      // Straight on to the next job while there is work and room; otherwise wait for a job to
      // finish or for the interval.
      if (!stopped && (job === undefined || running.size >= concurrency)) {
        if (job !== undefined) await Promise.race(running);
        else await pause();
      }
      wake = undefined;
    }
    await Promise.all(running);
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      loop = poll();
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      loop = undefined;
      await tail;
    },
    async drain(drainOptions = {}) {
      let count = 0;
      while (await runNext(drainOptions.includeDelayed ?? false)) count += 1;
      return count;
    },
  };
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
