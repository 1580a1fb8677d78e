import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { JobStatus, JobTable } from '../../db/schema.js';

export type { JobStatus };
export type JobRow = Selectable<JobTable>;

export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'done', 'dead'];

export interface NewJob {
  type: string;
  payload: Record<string, unknown>;
  /** When the job becomes due (Unix ms); now by default. */
  runAt?: number;
  maxAttempts?: number;
}

export function isJobStatus(value: unknown): value is JobStatus {
  return (JOB_STATUSES as readonly unknown[]).includes(value);
}

/** Writes the job in the caller's transaction (pass the trx!) so it commits with the state change or not at all. Returns the id. */
export async function enqueueJob(db: Db, job: NewJob, defaults: { maxAttempts: number; now?: number }): Promise<number> {
  const now = defaults.now ?? Date.now();
  const row = await db
    .insertInto('job')
    .values({
      type: job.type,
      payload: JSON.stringify(job.payload),
      status: 'pending',
      attempts: 0,
      max_attempts: job.maxAttempts ?? defaults.maxAttempts,
      run_at: job.runAt ?? now,
      locked_until: null,
      last_error: null,
      result: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * Newest first, paged by keyset: pass the last id of a page as `afterId` to get the older jobs
 * after it. The primary key serves the order; the status indexes serve the filter.
 */
export async function listJobs(db: Db, filter: { status?: JobStatus; limit: number; afterId?: number }): Promise<JobRow[]> {
  let query = db.selectFrom('job').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.afterId !== undefined) query = query.where('id', '<', filter.afterId);
  return query.execute();
}

/**
 * Puts a dead (or done) job back in the queue with a fresh set of attempts. The last error stays
 * so an operator still sees why it died. False when there is no such job or it is still queued.
 */
export async function retryJob(db: Db, id: number, now: number = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable('job')
    .set({ status: 'pending', attempts: 0, run_at: now, locked_until: null, result: null, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['dead', 'done'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function countJobsByStatus(db: Db): Promise<Record<JobStatus, number>> {
  const rows = await db
    .selectFrom('job')
    .select(['status', (eb) => eb.fn.countAll().as('count')])
    .groupBy('status')
    .execute();
  const counts: Record<JobStatus, number> = { pending: 0, running: 0, done: 0, dead: 0 };
  for (const row of rows) if (isJobStatus(row.status)) counts[row.status] = Number(row.count);
  return counts;
}

/** What /metrics reports of the outbox: jobs waiting, running and dead, and how long the oldest due job has waited. */
export interface JobBacklog {
  pending: number;
  running: number;
  dead: number;
  /** Milliseconds since the oldest due job (pending, or running with its claim run out) became due; 0 when none is due. */
  oldestDueMs: number;
  /** The same per job type, for every type with a pending, running or dead job, in type order. */
  byType: JobTypeBacklog[];
}

export interface JobTypeBacklog {
  type: string;
  pending: number;
  running: number;
  dead: number;
  /** Milliseconds since the type's oldest due job became due (a pending one, or a running one whose claim ran out); 0 when none is due. */
  oldestDueMs: number;
}

const BACKLOG_STATUSES = ['pending', 'running', 'dead'] as const;

/**
 * Read at scrape time in one statement: the rows of the pending, running and dead jobs in
 * job_status_type_run_at_idx (status, type, run_at), which holds every column the statement reads
 * (done jobs, the bulk of the table, are not read). A job whose run_at is still ahead (a backoff, a
 * job queued for later) counts as pending and waits for nothing yet. A running job whose claim ran out
 * (its worker stopped: killed, or WORKER=off since) counts as running and waits since its claim ran
 * out, as the workers take such jobs over first: read through job_status_locked_until_idx, one row each.
 */
export async function jobBacklog(db: Db, now: number): Promise<JobBacklog> {
  const rows = await db
    .selectFrom('job')
    .select((eb) => [
      eb.ref('status').$castTo<string>().as('status'),
      'type',
      eb.fn.countAll().as('count'),
      eb.fn
        .min(
          eb
            .case()
            .when(eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]))
            .then(eb.ref('run_at'))
            .end(),
        )
        .as('due_since'),
    ])
    .where('status', 'in', [...BACKLOG_STATUSES])
    .groupBy(['status', 'type'])
    .unionAll((eb) =>
      eb
        .selectFrom('job')
        .select((inner) => [
          sql<string>`'orphaned'`.as('status'),
          'type',
          inner.fn.countAll().as('count'),
          inner.fn.min('locked_until').as('due_since'),
        ])
        .where('status', '=', 'running')
        .where('locked_until', '<', now)
        .groupBy('type'),
    )
    .execute();
  const types = new Map<string, JobTypeBacklog & { dueSince: number | undefined }>();
  for (const row of rows) {
    let entry = types.get(row.type);
    if (entry === undefined) {
      entry = { type: row.type, pending: 0, running: 0, dead: 0, oldestDueMs: 0, dueSince: undefined };
      types.set(row.type, entry);
    }
    // The orphaned running jobs, counted among the running already: only when they became due.
    if (row.status !== 'orphaned') entry[row.status as (typeof BACKLOG_STATUSES)[number]] = Number(row.count);
    if (row.due_since !== null && row.due_since !== undefined)
      entry.dueSince = Math.min(entry.dueSince ?? Number.POSITIVE_INFINITY, Number(row.due_since));
  }
  const byType = [...types.values()]
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
    .map(({ dueSince, ...entry }) => ({ ...entry, oldestDueMs: dueSince === undefined ? 0 : Math.max(0, now - dueSince) }));
  const sum = (status: (typeof BACKLOG_STATUSES)[number]) => byType.reduce((total, entry) => total + entry[status], 0);
  return {
    pending: sum('pending'),
    running: sum('running'),
    dead: sum('dead'),
    oldestDueMs: byType.reduce((oldest, entry) => Math.max(oldest, entry.oldestDueMs), 0),
    byType,
  };
}
