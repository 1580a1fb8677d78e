import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../email-address.js';
import { toRfc3339 } from '../../db/time.js';
import { ERASED_MARKER, type PersonalDataPart, type PersonalDataSubject } from '../personal-data.js';

// The outbox (the job table) holds what a queued mail needs until the job is pruned, and some
// payloads carry the address itself (a password reset asked by email, a registration form, a
// contact message, an email change). The erasure replaces the person's email in every job that
// still names it, and what they gave with it (names, phone, birthday, gender, a message), and a job
// that has not run yet is ended instead: nothing is sent about a person who is gone.
//
// A job names the person when a string value of its payload is their email, trimmed and in any
// case: the strings replaceEmail replaces. They are found through job_email (migration 0400), which
// triggers keep for every write of a job, so a look-up is a range of its key, not a read of the
// whole table. Until then a job was found by `lower(payload) like '%email%'`, which also listed a
// job whose payload held the address inside a longer text (e.g. someone else's contact message
// that mentions it); the erasure never replaced such a mention, but ended such a job if it was
// pending. No job type writes an address inside another string: each carries it as a field of its
// own (`email`, `newEmail`, `oldEmail`, `contact.email`, `contactEmail`), and names go in fields
// of their own.

/** A read is bounded like every part's: the export lists the oldest of these; the erasure reads page after page. */
const JOBS_CAP = 1_000;

/**
 * The jobs (of `type`, or any) whose payload names `email`: a range of job_email's key, in job order,
 * at most JOBS_CAP of them after the job `afterId`.
 */
export function jobsNaming(db: Db, email: string, type?: string, afterId = 0) {
  let query = db
    .selectFrom('job_email as e')
    .innerJoin('job as j', 'j.id', 'e.job_id')
    .select(['j.id', 'j.type', 'j.payload', 'j.status', 'j.created_at'])
    .where('e.email', '=', normaliseEmail(email))
    .where('e.job_id', '>', afterId);
  if (type !== undefined) query = query.where('j.type', '=', type);
  return query.orderBy('e.job_id').limit(JOBS_CAP).execute();
}

/** What an erased person's job that had not run yet says it ended with. */
const CANCELLED = 'cancelled: the person was erased';

/** A job of an erased person given its rewritten payload; one that has not run yet is ended instead: nothing is sent about them. */
export async function rewriteErasedJob(trx: Db, job: { id: number; status: string }, payload: string, now: number): Promise<void> {
  await rewriteErasedJobs(trx, [{ job, payload }], now);
}

/**
 * rewriteErasedJob for a page of jobs in one statement: a person named by a thousand jobs (password
 * resets anyone may ask for) took a thousand round trips, over a second on PostgreSQL. VALUES' columns
 * are column1, column2, ... on both engines; whether a job is ended is 1 or 0 (SQLite binds no booleans).
 */
async function rewriteErasedJobs(trx: Db, rewrites: Array<{ job: { id: number; status: string }; payload: string }>, now: number) {
  if (rewrites.length === 0) return;
  const rows = sql.join(
    rewrites.map(({ job, payload }) => sql`(cast(${job.id} as bigint), ${payload}, cast(${job.status === 'pending' ? 1 : 0} as integer))`),
  );
  await sql`update job set payload = v.column2, updated_at = ${now},
      status = case when v.column3 = 1 then 'done' else job.status end,
      result = case when v.column3 = 1 then ${CANCELLED} else job.result end
    from (values ${rows}) as v where job.id = v.column1`.execute(trx);
}

/**
 * What a person gives beside their email in the objects of job payloads that name it: a registration's
 * form, a business registration's contact person, a contact-form message. Each goes in a field of its
 * own, so an object whose field holds the erased email holds these of the same person.
 */
const PERSON_FIELDS = new Set(['firstName', 'lastName', 'name', 'phone', 'birthday', 'gender', 'subject', 'message']);

const namesEmail = (value: unknown, email: string) => typeof value === 'string' && normaliseEmail(value) === email;

/**
 * Every string in the value equal to the email (case and spaces aside) replaced by `replacement`, and
 * the person's fields (PERSON_FIELDS) of an object that names the email by ERASED_MARKER: the erasure
 * clears names, phone, birthday and gender, and the outbox keeps a job 30 days once done (a dead one
 * for good). Objects that do not name the email (someone else's message) are left as they are.
 */
function replaceEmail(value: unknown, email: string, replacement: string): unknown {
  if (namesEmail(value, email)) return replacement;
  if (Array.isArray(value)) return value.map((item) => replaceEmail(item, email, replacement));
  if (value !== null && typeof value === 'object') {
    const theirs = Object.values(value).some((item) => namesEmail(item, email));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        theirs && PERSON_FIELDS.has(key) && typeof item === 'string' ? ERASED_MARKER : replaceEmail(item, email, replacement),
      ]),
    );
  }
  return value;
}

async function exportJobs(db: Db, subject: PersonalDataSubject) {
  const jobs = await jobsNaming(db, subject.email);
  return jobs.map((job) => ({ type: job.type, status: job.status, queuedAt: toRfc3339(Number(job.created_at)) }));
}

/**
 * Every job naming the person, a page of JOBS_CAP at a time: the cap bounds a read, not what is
 * erased. Anyone may ask for a person's password reset, each a job carrying the address (a repeat
 * within the resubmit window aside) kept 30 days once done, so a person may be named by thousands.
 */
async function eraseFromJobs(trx: Db, subject: PersonalDataSubject, now: number) {
  const email = normaliseEmail(subject.email);
  let afterId = 0;
  for (;;) {
    const jobs = await jobsNaming(trx, email, undefined, afterId);
    await rewriteErasedJobs(
      trx,
      jobs.map((job) => ({ job, payload: JSON.stringify(replaceEmail(JSON.parse(job.payload), email, subject.erasedEmail)) })),
      now,
    );
    if (jobs.length < JOBS_CAP) return;
    afterId = Number(jobs.at(-1)!.id);
  }
}

/** The outbox's part of "your data": the mails still queued or kept that name the person. */
export const jobsPersonalData: PersonalDataPart = { name: 'outbox', export: exportJobs, erase: eraseFromJobs };
