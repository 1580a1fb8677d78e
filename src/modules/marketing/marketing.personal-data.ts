import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { rewriteErasedJob } from '../../infra/jobs/jobs.personal-data.js';
import { ERASED_MARKER, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { COMPLETE_REGISTRATION_JOB } from './conversions.job.js';
import { jobsOfUser } from './marketing.repository.js';

// The CompleteRegistration jobs of a person: each carries the hash of their email, which anyone with
// a list of addresses can match, and the outbox keeps the job 30 days once sent (a dead one for good).
// The outbox's own part finds jobs by the addresses they name, and this one names none: its hash goes
// here, by the user id the job carries (not by the hash of the email now, which an email change since
// made another). One not yet sent is ended (the handler would skip it anyway: the person is erased).

async function eraseConversionJobs(trx: Db, subject: PersonalDataSubject, now: number): Promise<void> {
  for (const job of await jobsOfUser(trx, COMPLETE_REGISTRATION_JOB, subject.userId)) {
    const payload = { ...(JSON.parse(job.payload) as Record<string, unknown>), emailSha256: ERASED_MARKER };
    await rewriteErasedJob(trx, { id: Number(job.id), status: job.status }, JSON.stringify(payload), now);
  }
}

/** A person verifies an email once per store and kind: a handful of jobs, read whole. */
async function exportConversionJobs(db: Db, subject: PersonalDataSubject) {
  return (await jobsOfUser(db, COMPLETE_REGISTRATION_JOB, subject.userId)).map((job) => ({
    event: 'CompleteRegistration',
    status: job.status,
    queuedAt: toRfc3339(Number(job.created_at)),
  }));
}

/** The marketing module's part of "your data": the conversion events about the person, and their email's hash erased. */
export const marketingPersonalData: PersonalDataPart = {
  name: 'marketingEvents',
  export: exportConversionJobs,
  erase: eraseConversionJobs,
};
