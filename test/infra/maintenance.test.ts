import { afterAll, beforeAll, expect, it } from 'vitest';
import { pruneExpired } from '../../src/infra/maintenance.js';
import { accessTokenPruning } from '../../src/modules/accounts/index.js';
import { socialSignInPruning } from '../../src/modules/social/index.js';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

it('prunes old rate-limit windows and long-done jobs, and the accounts and social tasks their expired rows; keeps the rest', async () => {
  const now = Date.now();
  await registerVerified(t, uniqueEmail());
  await registerVerified(t, uniqueEmail());
  const [expired] = await t.database.db.selectFrom('access_token').select('token_hash').limit(1).execute();
  await t.database.db
    .updateTable('access_token')
    .set({ expires_at: now - 1 })
    .where('token_hash', '=', expired!.token_hash)
    .execute();
  await t.database.db
    .insertInto('rate_limit')
    .values([
      { key: 'old', window_start: now - 2 * 86_400_000, hits: 1 },
      { key: 'fresh', window_start: now, hits: 1 },
    ])
    .execute();
  await t.database.db
    .updateTable('job')
    .set({ updated_at: now - 40 * 86_400_000 })
    .where('status', '=', 'done')
    .execute();
  await t.database.db
    .insertInto('job')
    .values({
      type: 'x',
      payload: '{}',
      status: 'dead',
      attempts: 8,
      max_attempts: 8,
      run_at: 0,
      locked_until: null,
      last_error: 'gone',
      result: null,
      created_at: 0,
      updated_at: 0,
    })
    .execute();

  await t.database.db
    .insertInto('auth_record')
    .values([
      {
        id_hash: 'a'.repeat(64),
        provider: 'google',
        subject: 's',
        email: null,
        email_verified: false,
        first_name: null,
        last_name: null,
        store_code: 'WEB',
        language: 'et',
        created_at: 0,
        expires_at: now - 1,
        used_at: null,
      },
      {
        id_hash: 'b'.repeat(64),
        provider: 'google',
        subject: 's',
        email: null,
        email_verified: false,
        first_name: null,
        last_name: null,
        store_code: 'WEB',
        language: 'et',
        created_at: 0,
        expires_at: now + 60_000,
        used_at: null,
      },
    ])
    .execute();
  await t.database.db
    .insertInto('oauth_transaction')
    .values({
      state_hash: 'c'.repeat(64),
      provider: 'google',
      code_verifier: 'v',
      nonce: 'n',
      store_code: 'WEB',
      language: 'et',
      return_url: null,
      link_user_id: null,
      created_at: 0,
      expires_at: now - 1,
    })
    .execute();

  const report = await pruneExpired(t.database.db, now);
  expect(await socialSignInPruning()(t.database.db, now)).toBe(2);
  expect((await t.database.db.selectFrom('auth_record').select('id_hash').execute()).map((r) => r.id_hash)).toEqual(['b'.repeat(64)]);
  expect(await accessTokenPruning()(t.database.db, now)).toBe(1);
  expect(report.rateLimits).toBe(1);
  expect(report.jobs).toBeGreaterThan(0);
  expect(await t.database.db.selectFrom('access_token').select('token_hash').execute()).toHaveLength(1);
  const keys = (await t.database.db.selectFrom('rate_limit').select('key').execute()).map((r) => r.key);
  expect(keys).toContain('fresh');
  expect(keys).not.toContain('old');
  const statuses = (await t.database.db.selectFrom('job').select('status').execute()).map((r) => r.status);
  expect(statuses).not.toContain('done');
  expect(statuses).toContain('dead');
  expect(statuses).toContain('pending');
  expect(await pruneExpired(t.database.db, now)).toEqual({ rateLimits: 0, jobs: 0 });
  expect(await accessTokenPruning()(t.database.db, now)).toBe(0);
  expect(await socialSignInPruning()(t.database.db, now)).toBe(0);
});
