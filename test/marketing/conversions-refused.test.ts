import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailTo, register, tokenFromMail, uniqueEmail, verify, type AccountsTestApp } from '../helpers/accounts.js';

// An event the Conversions API refused (a 4xx: a revoked access token, a pixel that is not the
// shop's, a payload it does not take) gets the same answer at every attempt: it is dead at once,
// for an operator to see (`jobs list --status=dead`), instead of being sent again eight times over
// the backoff. What may pass (a 5xx, a timeout, 408, 429) is retried.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

async function verifiedRegistration(): Promise<void> {
  const email = uniqueEmail();
  await register(t, email);
  expect((await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'))).statusCode).toBe(200);
}

/** The CompleteRegistration job queued last. */
async function lastEventJob() {
  return t.database.db
    .selectFrom('job')
    .select(['status', 'attempts', 'last_error'])
    .where('type', '=', 'marketing.complete-registration')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}

describe('a CompleteRegistration event the Conversions API refused', () => {
  it.each([400, 401, 403, 404])(
    'is dead after its one attempt when the answer is %i, with the answer to read',
    async (status) => {
      await verifiedRegistration();
      const before = t.conversions.requests.length;
      t.conversions.respondWith(status, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
      await t.drainJobs();
      await t.jobs.worker.drain({ includeDelayed: true });

      expect(t.conversions.requests.length - before).toBe(1);
      const job = await lastEventJob();
      expect(job).toMatchObject({ status: 'dead', attempts: 1 });
      expect(job.last_error).toContain(`answered ${status}`);
      expect(job.last_error).toContain('Invalid OAuth access token.');
    },
    30_000,
  );

  it.each([408, 429, 500, 503])(
    'is sent again when the answer was %i',
    async (status) => {
      await verifiedRegistration();
      const before = t.conversions.requests.length;
      t.conversions.respondWith(status, { error: { message: 'try later' } });
      await t.drainJobs();
      expect(await lastEventJob()).toMatchObject({ status: 'pending', attempts: 1 });

      t.conversions.respondWith(200, {});
      await t.jobs.worker.drain({ includeDelayed: true });
      expect(t.conversions.requests.length - before).toBe(2);
      expect(await lastEventJob()).toMatchObject({ status: 'done', attempts: 2 });
    },
    30_000,
  );
});
