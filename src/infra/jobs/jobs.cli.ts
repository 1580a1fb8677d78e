import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { cliId, CliUsageError, cliWholeNumber } from '../cli-usage.js';
import type { Database } from '../../db/schema.js';
import { JOB_STATUSES, countJobsByStatus, isJobStatus, listJobs, retryJob, type JobRow, type JobStatus } from './queue.js';

export const JOBS_USAGE = `  jobs list [--status=pending|running|done|dead] [--limit=N]
                                      show the newest jobs (20 by default) and how many are in each status
  jobs retry <id>                     queue a dead (or done) job again with a fresh set of attempts`;

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** `storefront jobs ...`: operators look into the job queue and bring dead jobs back. */
export async function jobsCommand(db: Kysely<Database>, args: string[], print: (line: string) => void): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'list') return list(db, rest, print);
  if (action === 'retry') return retry(db, rest, print);
  throw new CliUsageError(`unknown jobs command "${args.join(' ')}"`);
}

async function list(db: Kysely<Database>, args: string[], print: (line: string) => void): Promise<void> {
  const { values } = parse(args, { status: { type: 'string' }, limit: { type: 'string' } }, false);
  let status: JobStatus | undefined;
  if (values.status !== undefined) {
    if (!isJobStatus(values.status)) throw new CliUsageError(`--status must be one of ${JOB_STATUSES.join(', ')}`);
    status = values.status;
  }
  const limit = values.limit === undefined ? DEFAULT_LIMIT : cliWholeNumber(values.limit, '--limit', 1, MAX_LIMIT);
  const jobs = await listJobs(db, { status, limit });
  if (jobs.length === 0) print(status === undefined ? 'no jobs' : `no ${status} jobs`);
  for (const job of jobs) print(describe(job));
  const counts = await countJobsByStatus(db);
  print(JOB_STATUSES.map((s) => `${s}=${counts[s]}`).join(' '));
}

async function retry(db: Kysely<Database>, args: string[], print: (line: string) => void): Promise<void> {
  const { positionals } = parse(args, {}, true);
  const [raw, extra] = positionals;
  if (raw === undefined || extra !== undefined) throw new CliUsageError('jobs retry takes one job id');
  const id = cliId(raw, 'a job id');
  if (await retryJob(db, id)) {
    print(`job ${id} is pending again and runs at the next poll of a worker`);
    return;
  }
  // The command line was right and the job is not there to retry: a failure (exit 1) whose message
  // is not buried under the usage, as a bad command line's is.
  const job = await db.selectFrom('job').select(['status']).where('id', '=', id).executeTakeFirst();
  if (job === undefined) throw new Error(`no job with id ${id}`);
  throw new Error(`job ${id} is ${job.status}, not dead or done: nothing to retry`);
}

/** A job on one line: its result and last error last (a job refused for good has both: what it did and the server's answer). */
function describe(job: JobRow): string {
  const outcome = [job.result, job.last_error].filter((part) => part !== null && part !== '').join(' · ');
  const last = outcome === '' ? '' : `\t${outcome.replace(/\s+/g, ' ').slice(0, 200)}`;
  return `${job.id}\t${job.type}\t${job.status}\t${job.attempts}/${job.max_attempts}\t${new Date(job.run_at).toISOString()}${last}`;
}

function parse<T extends Record<string, { type: 'string' }>>(args: string[], options: T, allowPositionals: boolean) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
}
