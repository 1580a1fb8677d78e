import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { deleteInBatches } from '../db/batched-delete.js';
import type { Database } from '../db/schema.js';
import { systemClock, type Clock } from './clock.js';
import { pruneRateLimits } from './rate-limit.js';
import { repeatFromStart } from './repeat.js';
import { RATE_LIMIT_KEPT_MS } from './rate-limit-window.js';

const DAY_MS = 86_400_000;

export interface PruneReport {
  rateLimits: number;
  jobs: number;
}

/**
 * Deletes what the lower layers kept and no longer need: rate-limit windows older than a day,
 * and jobs that finished more than `keepDoneJobsMs` ago (dead jobs are kept for operators). The
 * modules' own rows (tokens, sign-ins, baskets...) go by their prune tasks.
 * Idempotent, so workers running it at the same time do no harm.
 */
export async function pruneExpired(db: Kysely<Database>, now: number, keepDoneJobsMs = 30 * DAY_MS): Promise<PruneReport> {
  const rateLimits = await pruneRateLimits(db, now - RATE_LIMIT_KEPT_MS);
  // A job's rows in job_email (the addresses it names) go with it: on delete cascade, by job_email_job_idx.
  const jobs = await deleteInBatches(db, 'job', {
    key: 'id',
    where: (eb) => eb.and([eb('status', '=', 'done'), eb('updated_at', '<', now - keepDoneJobsMs)]),
    orderBy: 'updated_at',
  });
  return { rateLimits, jobs };
}

/**
 * A module's own pruning, run beside pruneExpired (e.g. tracking's old session actions): deletes
 * what it no longer needs as of `now` and returns how many rows went. The composition root that
 * starts the pruning hands these in, so this file knows no module.
 */
export type PruneTask = (db: Kysely<Database>, now: number) => Promise<number>;

/**
 * Runs pruneExpired and `tasks` once as the process starts and then every `intervalMs` until
 * stopped (repeat.ts). Each on its own: a failure is logged with the task's name and the others still
 * run (one that kept failing, ahead of the rest, stopped them for good: gift cards never expired, tables
 * grew), and it is tried next time. A run still going when the process stops ends after the statement
 * in hand (the database closes next): that is no failure, and the next start prunes again.
 */
export function schedulePruning(
  db: Kysely<Database>,
  log: FastifyBaseLogger,
  intervalMs: number,
  tasks: Readonly<Record<string, PruneTask>> = {},
  clock: Clock = systemClock,
): { stop(): void } {
  let stopped = false;
  const steps: Array<[string, (now: number) => Promise<Record<string, number>>]> = [
    ['expired', async (now) => ({ ...(await pruneExpired(db, now)) })],
    ...Object.entries(tasks).map(([name, task]): [string, (now: number) => Promise<Record<string, number>>] => [
      name,
      async (now) => ({ [name]: await task(db, now) }),
    ]),
  ];
  const prune = async () => {
    const now = clock.now();
    const report: Record<string, number> = {};
    const failed: string[] = [];
    for (const [name, step] of steps) {
      if (stopped) break;
      try {
        Object.assign(report, await step(now));
      } catch (err) {
        if (stopped) return log.info('pruning ended by the process stopping');
        failed.push(name);
        log.error({ err, task: name }, 'pruning failed');
      }
    }
    log.info(
      { ...report, ...(failed.length > 0 && { failed }) },
      stopped ? 'pruned expired rows until the process stopped' : 'pruned expired rows',
    );
  };
  const repeating = repeatFromStart(() => void prune().catch((err: unknown) => log.error({ err }, 'pruning failed')), intervalMs);
  return {
    stop: () => {
      stopped = true;
      repeating.stop();
    },
  };
}
