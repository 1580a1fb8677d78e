import { createHash } from 'node:crypto';
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

async function verifiedNotSent(email = uniqueEmail()): Promise<string> {
  await register(t, email);
  const verified = await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'));
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json().accessToken as string;
}

/** The outbox's rows that still carry the hash of the address. */
const jobsHolding = async (email: string) => {
  const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  const rows = await t.database.db.selectFrom('job').select(['payload', 'status', 'result']).execute();
  return rows.filter((row) => row.payload.includes(hash));
};

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

  // The outbox keeps a done job 30 days and a dead one for good: the hash of the email is the
  // person's (anyone with a list of addresses finds theirs), and it went with the rest of them.
  it('keeps no hash of the email in the outbox, sent or dead', async () => {
    const sent = uniqueEmail();
    const sentToken = await verifiedNotSent(sent);
    t.conversions.respondWith(200, {});
    await t.drainJobs();
    expect(await jobsHolding(sent)).toHaveLength(1);

    const refused = uniqueEmail();
    const refusedToken = await verifiedNotSent(refused);
    // A 4xx is a refusal for good: the job is kept as dead, for `jobs retry` once the setting is mended.
    t.conversions.respondWith(400, { error: 'bad token' });
    await t.drainJobs();
    expect((await jobsHolding(refused)).map((job) => job.status)).toEqual(['dead']);

    for (const token of [sentToken, refusedToken]) {
      const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
      expect(erased.statusCode, erased.body).toBe(204);
    }
    expect(await jobsHolding(sent)).toEqual([]);
    expect(await jobsHolding(refused)).toEqual([]);
  }, 30_000);
});
