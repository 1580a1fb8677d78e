import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/2026_12_10_1060_newsletter_flag_subscriptions.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// Users whose newsletter flag was set with no subscription behind it (the demo data, rows written
// before the subscriptions followed the flag) were shown the email consent in every store and sent
// its marketing mails, and were on no store's newsletter list. Migration 2026_12_10_1060 gives them
// the subscriptions the profile now reads, in the stores of their accounts, so nothing is lost.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

async function flagged(options: { verified?: boolean } = {}) {
  const web = await createCustomer(t.database.db, { store: 'WEB' });
  const web2 = await createCustomer(t.database.db, { store: 'WEB2', ofUser: web });
  const userId = await userIdOf(t.database.db, web);
  const user = await t.database.db
    .updateTable('app_user')
    .set({ newsletter: true, email_verified: options.verified ?? true, language: 'ru', terms_accepted_at: 1_700_000_000_000 })
    .where('id', '=', userId)
    .returning('email')
    .executeTakeFirstOrThrow();
  return { web, web2, email: user.email };
}

const granted = async (token: string, store: string) =>
  (await as(t, token, store)('GET', '/client-account')).json().marketingConsents.email.granted as boolean;

const rows = (email: string) =>
  t.database.db
    .selectFrom('newsletter_subscriber')
    .select(['store_code', 'language', 'source', 'consented_at', 'withdrawn_at'])
    .where('email', '=', email)
    .orderBy('store_code')
    .execute();

describe('migration 2026_12_10_1060_newsletter_flag_subscriptions', () => {
  it("subscribes a flagged user's confirmed email in its accounts' stores, and leaves the others", async () => {
    const legacy = await flagged();
    const withdrawnOne = await flagged();
    // A withdrawal in WEB2 is the person's word there: not subscribed again. Nor is a user subscribed somewhere.
    await t.database.db
      .insertInto('newsletter_subscriber')
      .values({
        email: withdrawnOne.email,
        store_code: 'WEB2',
        language: 'et',
        source: 'website',
        consented_at: 1,
        withdrawn_at: 2,
        created_at: 1,
        updated_at: 2,
      })
      .execute();
    const notActivated = await flagged({ verified: false });
    expect(await granted(legacy.web.token, 'WEB')).toBe(false);

    await migration.up(t.database.db);

    const consent = { language: 'ru', source: 'registration', consented_at: 1_700_000_000_000, withdrawn_at: null };
    expect((await rows(legacy.email)).map((row) => ({ ...row, consented_at: Number(row.consented_at) }))).toEqual([
      { store_code: 'WEB', ...consent },
      { store_code: 'WEB2', ...consent },
    ]);
    expect(await granted(legacy.web.token, 'WEB')).toBe(true);
    expect(await granted(legacy.web2.token, 'WEB2')).toBe(true);
    expect((await rows(withdrawnOne.email)).map((row) => [row.store_code, row.withdrawn_at === null])).toEqual([
      ['WEB', true],
      ['WEB2', false],
    ]);
    expect(await rows(notActivated.email)).toEqual([]);
    // Run again, it adds nothing.
    await migration.up(t.database.db);
    expect(await rows(legacy.email)).toHaveLength(2);
  });
});
