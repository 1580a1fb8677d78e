import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { PersonalDataPart, PersonalDataSubject } from '../personal-data.js';

// The outbox (the job table) holds what a queued mail needs until the job is pruned, and some
// payloads carry the address itself (a password reset asked by email, a registration form). The
// erasure replaces the person's email in every job that still names it, and a job that has not
// run yet is ended instead: nothing is sent about a person who is gone.

/** Bounded like every part: the table is pruned, and one person is named by few jobs. */
const JOBS_CAP = 1_000;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function jobsNaming(db: Db, email: string) {
  const pattern = `%${escapeLike(JSON.stringify(email.trim().toLowerCase()).slice(1, -1))}%`;
  return db
    .selectFrom('job')
    .select(['id', 'type', 'payload', 'status', 'created_at'])
    .where(sql<boolean>`lower(payload) like ${pattern} escape '\\'`)
    .orderBy('id')
    .limit(JOBS_CAP)
    .execute();
}

/** Every string in the value equal to the email (case and spaces aside) replaced by `replacement`. */
function replaceEmail(value: unknown, email: string, replacement: string): unknown {
  if (typeof value === 'string') return value.trim().toLowerCase() === email ? replacement : value;
  if (Array.isArray(value)) return value.map((item) => replaceEmail(item, email, replacement));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceEmail(item, email, replacement)]));
  return value;
}

async function exportJobs(db: Db, subject: PersonalDataSubject) {
  const jobs = await jobsNaming(db, subject.email);
  return jobs.map((job) => ({ type: job.type, status: job.status, queuedAt: toRfc3339(Number(job.created_at)) }));
}

async function eraseFromJobs(trx: Db, subject: PersonalDataSubject, now: number) {
  const email = subject.email.trim().toLowerCase();
  for (const job of await jobsNaming(trx, email)) {
    const payload = JSON.stringify(replaceEmail(JSON.parse(job.payload), email, subject.erasedEmail));
    const notRun = job.status === 'pending';
    await trx
      .updateTable('job')
      .set({ payload, updated_at: now, ...(notRun ? { status: 'done' as const, result: 'cancelled: the person was erased' } : {}) })
      .where('id', '=', job.id)
      .execute();
  }
}

/** The outbox's part of "your data": the mails still queued or kept that name the person. */
export const jobsPersonalData: PersonalDataPart = { name: 'outbox', export: exportJobs, erase: eraseFromJobs };
