import { sql, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { isPostgres } from '../../db/row-lock.js';
import type { Database, JobStatus, JobTable } from '../../db/schema.js';

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

/**
 * What /metrics reports of the outbox: jobs waiting, running and dead, and how long the oldest due job has waited.
 * The counts are the types' counts summed, each counted up to JOB_BACKLOG_COUNT_CAP; the ages are exact.
 */
export interface JobBacklog {
  pending: number;
  running: number;
  dead: number;
  /** Jobs that failed for good in the hour before the scrape (by their updated_at), counted up to JOB_BACKLOG_COUNT_CAP. */
  diedLastHour: number;
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
  /** Its jobs that failed for good in the hour before the scrape. */
  diedLastHour: number;
  /** Milliseconds since the type's oldest due job became due (a pending one, or a running one whose claim ran out); 0 when none is due. */
  oldestDueMs: number;
}

/** The statuses the backlog counts (the statement's own list). */
type BacklogStatus = 'pending' | 'running' | 'dead';

/** The window of JobBacklog's diedLastHour. */
const DIED_WINDOW_MS = 3_600_000;

/**
 * Past this many jobs of one type and status the backlog's count stops ("10000 means at least"): a
 * scrape reads at most this many index entries of each, so its cost stays bounded however many jobs
 * a mail server's outage piles up, exactly when the operator scrapes most.
 */
export const JOB_BACKLOG_COUNT_CAP = 10_000;

/**
 * Read at scrape time in one statement, through job_status_type_run_at_idx (status, type, run_at),
 * which holds every column it reads (done jobs, the bulk of the table, are not read):
 * - the types of each of the pending, running and dead statuses, one index seek per type (the next
 *   type after the last one found: a loose index scan, as neither engine skips through an index on its own);
 * - per type and status, its jobs counted up to JOB_BACKLOG_COUNT_CAP (a count over a LIMITed subquery);
 * - per type, its oldest due pending job's run_at, exact: one seek, the first entry of (pending, type)
 *   when it is due. A job whose run_at is still ahead (a backoff, a job queued for later) counts as
 *   pending and waits for nothing yet.
 * A running job whose claim ran out (its worker stopped: killed, or WORKER=off since) counts as running
 * and waits since its claim ran out, as the workers take such jobs over first: read through
 * job_status_locked_until_idx, one row each (running jobs are as few as the workers' claims).
 * The jobs that failed for good in the last hour, per type: up to JOB_BACKLOG_COUNT_CAP of them in all,
 * through job_status_updated_idx (status, updated_at). Dead jobs are kept until retried, so their count
 * stays at the cap after a flood; what died lately is what an alert can follow.
 */
export async function jobBacklog(db: Kysely<Database>, now: number): Promise<JobBacklog> {
  // PostgreSQL plans the count of a type by the type's estimated size, and for one it takes to be under
  // the cap (a flood of one type beside many small ones is just that) it would rather read a bitmap of
  // all the type's entries, or the whole table, than walk the index and stop at the cap. Both are off
  // for this statement alone: `set local`, in a transaction of its own.
  const rows = isPostgres(db)
    ? await db.transaction().execute(async (trx) => {
        await sql`set local enable_bitmapscan = off`.execute(trx);
        await sql`set local enable_seqscan = off`.execute(trx);
        return backlogRows(trx, now);
      })
    : await backlogRows(db, now);
  const types = new Map<string, JobTypeBacklog & { dueSince: number | undefined }>();
  for (const row of rows) {
    let entry = types.get(row.type);
    if (entry === undefined) {
      entry = { type: row.type, pending: 0, running: 0, dead: 0, diedLastHour: 0, oldestDueMs: 0, dueSince: undefined };
      types.set(row.type, entry);
    }
    // The orphaned running jobs, counted among the running already: only when they became due.
    if (row.status === 'died') entry.diedLastHour = Number(row.count);
    else if (row.status !== 'orphaned') entry[row.status as BacklogStatus] = Number(row.count);
    if (row.due_since !== null && row.due_since !== undefined)
      entry.dueSince = Math.min(entry.dueSince ?? Number.POSITIVE_INFINITY, Number(row.due_since));
  }
  const byType = [...types.values()]
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
    .map(({ dueSince, ...entry }) => ({ ...entry, oldestDueMs: dueSince === undefined ? 0 : Math.max(0, now - dueSince) }));
  const sum = (status: BacklogStatus | 'diedLastHour') => byType.reduce((total, entry) => total + entry[status], 0);
  return {
    pending: sum('pending'),
    running: sum('running'),
    dead: sum('dead'),
    diedLastHour: sum('diedLastHour'),
    oldestDueMs: byType.reduce((oldest, entry) => Math.max(oldest, entry.oldestDueMs), 0),
    byType,
  };
}

async function backlogRows(db: Db, now: number) {
  const { rows } = await sql<{ status: string; type: string; count: number | string; due_since: number | string | null }>`
    with recursive kinds (status, type) as (
      select s.status, (select min(j.type) from job j where j.status = s.status)
      from (select 'pending' as status union all select 'running' union all select 'dead') s
      union all
      select k.status, (select min(j.type) from job j where j.status = k.status and j.type > k.type)
      from kinds k
      where k.type is not null
    )
    select k.status, k.type,
      (select count(*) from (
        select 1 from job j where j.status = k.status and j.type = k.type order by j.run_at limit ${JOB_BACKLOG_COUNT_CAP}
      ) c) as count,
      case when k.status = 'pending' then
        (select min(j.run_at) from job j where j.status = 'pending' and j.type = k.type and j.run_at <= ${now})
      end as due_since
    from kinds k
    where k.type is not null
    union all
    select 'orphaned', type, count(*), min(locked_until)
    from job
    where status = 'running' and locked_until < ${now}
    group by type
    union all
    select 'died', type, count(*), null
    from (
      select type from job where status = 'dead' and updated_at >= ${now - DIED_WINDOW_MS}
      order by updated_at limit ${JOB_BACKLOG_COUNT_CAP}
    ) died
    group by type`.execute(db);
  return rows;
}
