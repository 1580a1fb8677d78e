import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailTo, register, tokenFromMail, uniqueEmail, verify, type AccountsTestApp } from '../helpers/accounts.js';

// The CompleteRegistration event is sent at least once: an attempt the platform took but whose
// answer was lost (a proxy's 504, a timeout, a worker that died before it recorded the send) is
// sent again. The platform drops a repeat only by its event_id, so every attempt carries the same one.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

interface ConversionsBody {
  data: Array<{ event_name: string; event_id?: unknown }>;
}

async function verifiedRegistration(): Promise<void> {
  const email = uniqueEmail();
  await register(t, email);
  expect((await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'))).statusCode).toBe(200);
}

describe('the CompleteRegistration event', () => {
  it('carries one event_id over its retries, and another one for another registration', async () => {
    await verifiedRegistration();
    t.conversions.respondWith(504, { error: 'upstream timed out' });
    await t.drainJobs();
    t.conversions.respondWith(200, {});
    await t.jobs.worker.drain({ includeDelayed: true });
    await verifiedRegistration();
    await t.drainJobs();

    const ids = t.conversions.requests.map((request) => (request.body as ConversionsBody).data[0]!.event_id);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toEqual(expect.stringMatching(/^[0-9a-f]{32,64}$/));
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toEqual(expect.stringMatching(/^[0-9a-f]{32,64}$/));
    expect(ids[2]).not.toBe(ids[0]);
  }, 30_000);
});
