import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { call, createDeployment, describeOnPostgres, sentTo, type Deployment, type RunningProcess } from './processes.js';

// `storefront worker` processes beside an API (WORKER=off) on one PostgreSQL database
// (docs/deployment.md): a worker killed mid-job leaves the job to be taken again once its claim
// runs out, sent once; two workers run each queued job once.

describeOnPostgres('worker processes on one database', () => {
  let deployment: Deployment;
  let api: RunningProcess;
  // An SMTP server that takes the connection and never greets: a mail job hangs there mid-send.
  const held: Socket[] = [];
  const silentSmtp = createServer((socket) => held.push(socket));
  beforeAll(async () => {
    deployment = await createDeployment({ JOB_POLL_INTERVAL_MS: '100' });
    await new Promise<void>((resolve) => silentSmtp.listen(0, '127.0.0.1', resolve));
    api = await deployment.startApi();
  }, 120_000);
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    silentSmtp.close();
    await deployment?.close();
  }, 60_000);

  const register = (email: string) =>
    call(api.url, 'POST', '/auth/register-simple', {
      body: { email, firstName: 'Mari', lastName: 'Maasikas' },
      headers: { 'x-forwarded-for': '198.51.100.20' },
    });
  // The jobs queued after `afterId` (a registration's mail job names its user by id, not by address).
  const jobsAfter = (afterId: number) =>
    deployment.database.db.selectFrom('job').select(['id', 'status', 'attempts', 'type']).where('id', '>', afterId).execute();
  const lastJobId = async () =>
    Number(
      (
        await deployment.database.db
          .selectFrom('job')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst()
      )?.id ?? 0,
    );

  it('a worker killed mid-job leaves the job to another worker once its claim runs out: sent once', async () => {
    const port = (silentSmtp.address() as { port: number }).port;
    const doomed = await deployment.startWorker({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const email = uniqueEmail('killed');
    const before = await lastJobId();
    expect((await register(email)).status).toBe(200);
    // The registration's job ran (it makes the user), and its mail job hangs at the silent server.
    await expect
      .poll(async () => (await jobsAfter(before)).map((job) => job.status).sort(), { timeout: 15_000 })
      .toEqual(['done', 'running']);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const [hung] = (await jobsAfter(before)).filter((job) => job.status === 'running');
    // The claim would run out in minutes; the test moves it to now.
    await deployment.database.db
      .updateTable('job')
      .set({ locked_until: Date.now() - 1 })
      .where('id', '=', hung!.id)
      .execute();
    await Promise.all([deployment.startWorker(), deployment.startWorker()]);
    await deployment.smtp.waitFor((mail) => sentTo(mail, email), 15_000);
    await expect.poll(async () => (await jobsAfter(before)).find((job) => job.id === hung!.id)?.status, { timeout: 10_000 }).toBe('done');
    expect((await jobsAfter(before)).find((job) => job.id === hung!.id)?.attempts).toBe(2);
    expect(deployment.smtp.mails.filter((mail) => sentTo(mail, email))).toHaveLength(1);
  }, 60_000);

  it('two workers run each of many queued jobs once', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => uniqueEmail(`many${i}`));
    const before = await lastJobId();
    const answers = await Promise.all(emails.map(register));
    expect(answers.map((r) => r.status)).toEqual(emails.map(() => 200));
    for (const email of emails) await deployment.smtp.waitFor((mail) => sentTo(mail, email), 20_000);
    await expect
      .poll(
        async () => {
          const jobs = await jobsAfter(before);
          return jobs.length === emails.length * 2 && jobs.every((job) => job.status === 'done');
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const email of emails)
      expect(
        deployment.smtp.mails.filter((mail) => sentTo(mail, email)),
        email,
      ).toHaveLength(1);
    const attempts = (await jobsAfter(before)).map((job) => job.attempts);
    expect(new Set(attempts)).toEqual(new Set([1]));
  }, 60_000);

  it('a worker prunes soon after it starts, not an hour later: restarted more often, it would never prune', async () => {
    const db = deployment.database.db;
    const now = Date.now();
    await db
      .insertInto('rate_limit')
      .values({ key: 'scale:stale', window_start: now - 2 * 86_400_000, hits: 1 })
      .execute();
    const stale = () => db.selectFrom('rate_limit').select('key').where('key', '=', 'scale:stale').execute();
    const worker = await deployment.startWorker();
    try {
      await expect.poll(async () => (await stale()).length, { timeout: 10_000, interval: 100 }).toBe(0);
      // The line is logged once the module tasks that run after the expired rows have finished too.
      await expect.poll(() => worker.output(), { timeout: 10_000, interval: 100 }).toContain('pruned expired rows');
    } finally {
      await worker.stop();
    }
  }, 60_000);

  it('a worker stopped as it starts (its first pruning still running) stops cleanly, logging no error', async () => {
    for (let i = 0; i < 2; i += 1) {
      const worker = await deployment.startWorker();
      expect(await worker.stop()).toBe(0);
      expect(worker.output()).toContain('shut down cleanly');
      expect(worker.output()).not.toContain('"level":50');
    }
  }, 60_000);
});
