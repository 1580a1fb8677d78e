import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { RESUBMIT_WINDOW_MS } from '../../src/infra/resubmit.js';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { jobsNaming, storedJobs } from '../helpers/job-emails.js';
import { as } from '../profile/helpers.js';

// A reset asked for an address queues a job that carries it, whoever asks and however often (the
// per-address cap is the worker's, the only repeat dropped one within the resubmit window), and the
// outbox keeps a done job 30 days. Someone asking for a person's reset every five minutes for four
// days leaves over a thousand jobs naming them: the erasure rewrites every one, not the first 1 000.

const clock = fixedClock(Date.parse('2026-11-02T08:00:00Z'));
let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ clock });
});
afterAll(async () => t?.close());

describe('DELETE /client-account and the outbox', () => {
  it('leaves no job naming the person, however many jobs name them', async () => {
    const email = uniqueEmail('asked-often');
    const token = await registerVerified(t, email);
    const requests = 1_050;
    for (let sent = 0; sent < requests; sent += 1) {
      clock.advance(RESUBMIT_WINDOW_MS + 1);
      const reset = await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } });
      expect(reset.statusCode, reset.body).toBe(200);
    }
    const naming = jobsNaming(await storedJobs(t.database.db), email);
    expect(naming.length).toBeGreaterThan(requests);

    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);

    expect(jobsNaming(await storedJobs(t.database.db), email)).toEqual([]);
    // And none of those still queued is run: each is ended as the first thousand are.
    const ids = naming.map((job) => job.id);
    const statuses = new Set<string>();
    for (let start = 0; start < ids.length; start += 500) {
      const rows = await t.database.db
        .selectFrom('job')
        .select('status')
        .where('id', 'in', ids.slice(start, start + 500))
        .execute();
      for (const row of rows) statuses.add(row.status);
    }
    expect([...statuses]).toEqual(['done']);
  }, 120_000);
});
