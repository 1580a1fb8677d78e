import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  mailTo,
  register,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { as } from '../profile/helpers.js';

// The CompleteRegistration event carries the hash of the person's email (the platform matches
// people by it). One not yet sent when the person erases their data is not sent after: nothing is
// sent about a person who is gone, as the erasure ends every other job of theirs not yet run.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

async function verifiedNotSent(): Promise<string> {
  const email = uniqueEmail();
  await register(t, email);
  const verified = await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'));
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json().accessToken as string;
}

describe('the CompleteRegistration event of a person erased before it was sent', () => {
  it('is not sent once the erasure committed, nor retried', async () => {
    const token = await verifiedNotSent();
    // The endpoint is down at the first attempt: the event waits for its retry.
    t.conversions.respondWith(503, { error: 'unavailable' });
    await t.drainJobs();
    expect(t.conversions.requests).toHaveLength(1);

    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);

    t.conversions.respondWith(200, {});
    await t.jobs.worker.drain({ includeDelayed: true });
    expect(t.conversions.requests).toHaveLength(1);
  }, 30_000);

  it('is not sent when the erasure came before its first attempt', async () => {
    const before = t.conversions.requests.length;
    const token = await verifiedNotSent();
    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);
    t.conversions.respondWith(200, {});
    await t.jobs.worker.drain({ includeDelayed: true });
    expect(t.conversions.requests).toHaveLength(before);
  }, 30_000);
});
