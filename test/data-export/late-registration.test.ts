import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { exportUser, sleep, ymdHis } from './fixtures.js';

// A registration is resolved by the worker (the answer is the same for a known and an unknown
// email), which may run its job long after the request: a backlog, a retry after a failed attempt,
// WORKER=off with the worker process down. The account it makes must reach the partner's next
// window, not be stamped into a window the partner has already read.

const SETTLE_MS = 300;
let t: AccountsTestApp;
let authorization: string;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { DATA_EXPORT_SETTLE_MS: String(SETTLE_MS), DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
});
afterAll(async () => t?.close());

async function pull(from: number, to: number): Promise<string[]> {
  const query = `createdFrom=${encodeURIComponent(ymdHis(from))}&createdTo=${encodeURIComponent(ymdHis(to))}&per-page=1000`;
  const response = await t.app.inject({ method: 'GET', url: `/export/client-account?${query}`, headers: { authorization } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<{ client: string }>).map((row) => row.client);
}

describe('an account made by a registration job that ran late', () => {
  it('is in the window read after it was made', async () => {
    const start = Date.now() - 60_000;
    const email = uniqueEmail('late');
    // The request is answered; its job waits (no drainJobs yet).
    const registered = await t.app.inject({
      method: 'POST',
      url: '/auth/register-simple',
      headers: { store: 'WEB' },
      payload: { email, firstName: 'Mari', lastName: 'Maasikas' },
    });
    expect(registered.statusCode, registered.body).toBe(200);
    await sleep(1000 + SETTLE_MS + 200);
    // The partner's pull up to the last whole second: settled, answered whole.
    const firstEnd = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const first = await pull(start, firstEnd);

    await t.drainJobs();
    const { code } = await t.database.db
      .selectFrom('client_account')
      .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
      .select('client_account.code')
      .where('app_user.email', '=', email)
      .executeTakeFirstOrThrow();
    await sleep(1000 + SETTLE_MS + 200);
    // The next pull starts where the first ended.
    const secondEnd = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const second = await pull(firstEnd + 1000, secondEnd);

    expect([...first, ...second].filter((client) => client === code)).toEqual([code]);
  });
});
