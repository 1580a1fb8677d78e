import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsCommand } from '../../src/infra/jobs/jobs.cli.js';
import {
  createAccountsTestApp,
  login,
  mailsTo,
  register,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';

/** The account-mail jobs that carry this user's id. */
async function mailJobsOf(t: AccountsTestApp, email: string) {
  const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  const jobs = await t.database.db.selectFrom('job').selectAll().where('type', '=', 'account.mail').orderBy('id').execute();
  return jobs.filter((job) => (JSON.parse(job.payload) as { userId?: number }).userId === Number(user.id));
}

/** A registration queued and not yet applied (the `register` helper runs the outbox). */
const queueRegistration = (t: AccountsTestApp, email: string) =>
  t.app.inject({ method: 'POST', url: '/auth/register-simple', payload: { email, firstName: 'Mari', lastName: 'Maasikas' } });

async function jobs(t: AccountsTestApp, args: string[]): Promise<string[]> {
  const lines: string[] = [];
  await jobsCommand(t.database.db, args, (line) => lines.push(line));
  return lines;
}

describe('a mail server that fails for a while', () => {
  let t: AccountsTestApp;
  beforeAll(async () => {
    t = await createAccountsTestApp();
  });
  afterAll(() => t.close());

  it('loses nothing: the job is retried until exactly one verification mail arrives, and its link works', async () => {
    const email = uniqueEmail('retry');
    t.smtp.failNext(2);
    const before = Date.now();
    expect((await queueRegistration(t, email)).statusCode).toBe(200);

    // The registration itself, then the first attempt of its mail.
    expect(await t.drainJobs()).toBe(2);
    expect(mailsTo(t, email)).toEqual([]);
    const [failed] = await mailJobsOf(t, email);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
    expect(failed!.last_error).toMatch(/451|Try again later/);
    expect(failed!.run_at).toBeGreaterThan(before + 1000);
    // Not due yet: a plain drain leaves it alone.
    expect(await t.drainJobs()).toBe(0);

    expect(await t.jobs.worker.drain({ includeDelayed: true })).toBe(2);
    const mails = mailsTo(t, email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Kinnitage oma e-posti aadress – Main store');
    expect(await mailJobsOf(t, email)).toEqual([expect.objectContaining({ status: 'done', attempts: 3, result: 'sent' })]);

    const verified = await verify(t, tokenFromMail(mails[0]!, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    expect((await login(t, email)).statusCode).toBe(200);
  });

  it('never keeps the token of a verification or reset mail in the job table', async () => {
    const email = uniqueEmail('secret');
    t.smtp.failNext(1);
    await register(t, email);
    await t.jobs.worker.drain({ includeDelayed: true });
    const verificationToken = tokenFromMail(mailsTo(t, email)[0]!, 'verificationToken');
    expect((await verify(t, verificationToken)).statusCode).toBe(200);

    t.smtp.failNext(1);
    await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } });
    await t.jobs.worker.drain({ includeDelayed: true });
    const mails = mailsTo(t, email);
    expect(mails).toHaveLength(2);
    const resetToken = tokenFromMail(mails[1]!, 'passwordResetToken');

    const rows = await t.database.db.selectFrom('job').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const token of [verificationToken, resetToken]) {
      const matches = await t.database.db.selectFrom('job').select('id').where('payload', 'like', `%${token}%`).execute();
      expect(matches).toEqual([]);
      for (const row of rows) expect(JSON.stringify(row)).not.toContain(token);
    }
  });
});

describe('a mail that fails every attempt', () => {
  let t: AccountsTestApp;
  beforeAll(async () => {
    t = await createAccountsTestApp({ env: { JOB_MAX_ATTEMPTS: '2' } });
  });
  afterAll(() => t.close());

  it('ends dead, is listed by `jobs list --status=dead`, and `jobs retry` delivers it', async () => {
    const email = uniqueEmail('dead');
    t.smtp.failNext(1000);
    await queueRegistration(t, email);
    expect(await t.jobs.worker.drain({ includeDelayed: true })).toBe(3);
    expect(mailsTo(t, email)).toEqual([]);
    const [job] = await mailJobsOf(t, email);
    expect(job).toMatchObject({ status: 'dead', attempts: 2, max_attempts: 2 });
    expect(job!.last_error).toMatch(/451|Try again later/);

    const listed = await jobs(t, ['list', '--status=dead']);
    expect(listed).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${job!.id}\\taccount\\.mail\\tdead\\t2/2\\t`))]));
    expect(listed.at(-1)).toMatch(/dead=1/);

    t.smtp.failNext(0);
    expect(await jobs(t, ['retry', String(job!.id)])).toEqual([expect.stringContaining(`job ${job!.id} is pending again`)]);
    expect(await t.drainJobs()).toBe(1);
    const mails = mailsTo(t, email);
    expect(mails).toHaveLength(1);
    expect((await mailJobsOf(t, email))[0]).toMatchObject({ status: 'done', result: 'sent' });
    expect(await jobs(t, ['list', '--status=dead'])).toEqual(['no dead jobs', expect.stringMatching(/dead=0/)]);

    expect((await verify(t, tokenFromMail(mails[0]!, 'verificationToken'))).statusCode).toBe(200);
  });
});
