import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/2026_12_11_1500_add_marketing_consent_event_store.js';
import { createCustomer, userIdOf, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// Migration 2026_12_11_1500 gives the consent history its store. The rows from before were written
// by the profile's switch in some store of the user: a user with client accounts in one store made
// them there; the others' stay unattributed (null) and show in no store: each store's subscription
// keeps its own consent and withdrawal times. Between migrations 1060 and 1500 the switch already
// withdrew one store alone, so a row showing in every store showed one store's withdrawal in another.

const T3 = Date.UTC(2026, 10, 3);

const T1 = Date.UTC(2026, 10, 1);
const T2 = Date.UTC(2026, 10, 2);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());
const db = () => t.database.db;

async function legacyEvents(customer: TestCustomer) {
  const userId = await userIdOf(db(), customer);
  await db()
    .insertInto('marketing_consent_event')
    .values([
      { user_id: userId, consent: 'EMAIL', granted: true, store_code: null, source: 'PROFILE', created_at: T1 },
      { user_id: userId, consent: 'EMAIL', granted: false, store_code: null, source: 'PROFILE', created_at: T2 },
    ])
    .execute();
  return userId;
}

const storesOf = async (userId: number) =>
  (await db().selectFrom('marketing_consent_event').select('store_code').where('user_id', '=', userId).orderBy('id').execute()).map(
    (row) => row.store_code,
  );

async function emailConsent(token: string, store: string) {
  const response = await as(t, token, store)('GET', '/client-account');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().marketingConsents.email;
}

describe('migration 2026_12_11_1500_add_marketing_consent_event_store', () => {
  it("attributes a one-store user's history to that store and leaves the others' unattributed", async () => {
    const single = await createCustomer(db(), { store: 'WEB2' });
    const web = await createCustomer(db(), { store: 'WEB' });
    const web2 = await createCustomer(db(), { store: 'WEB2', ofUser: web });
    const singleId = await legacyEvents(single);
    const bothId = await legacyEvents(web);
    // The grant subscribed WEB (its subscription keeps the time), the withdrawal left it.
    const email = (await db().selectFrom('app_user').select('email').where('id', '=', bothId).executeTakeFirstOrThrow()).email;
    await db()
      .insertInto('newsletter_subscriber')
      .values({
        email,
        store_code: 'WEB',
        language: 'et',
        source: 'profile',
        consented_at: T1,
        withdrawn_at: T2,
        created_at: T1,
        updated_at: T2,
      })
      .execute();

    await migration.down(db());
    await migration.up(db());

    expect(await storesOf(singleId)).toEqual(['WEB2', 'WEB2']);
    expect(await storesOf(bothId)).toEqual([null, null]);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await emailConsent(single.token, 'WEB2')).toEqual({ granted: false, givenAt: iso(T1), withdrawnAt: iso(T2) });
    expect(await emailConsent(web.token, 'WEB')).toEqual({ granted: false, givenAt: iso(T1), withdrawnAt: iso(T2) });
    // WEB2 was never subscribed: neither unattributed row shows there.
    expect(await emailConsent(web2.token, 'WEB2')).toEqual({ granted: false, givenAt: null, withdrawnAt: null });
  });

  it("does not show WEB2's withdrawal, made by the per-store switch before 1500, in WEB", async () => {
    const web = await createCustomer(db(), { store: 'WEB' });
    const web2 = await createCustomer(db(), { store: 'WEB2', ofUser: web });
    const userId = await userIdOf(db(), web);
    // Since 1060: on in WEB (T1), on in WEB2 (T2), off in WEB2 alone (T3); the history had no store.
    await db()
      .insertInto('marketing_consent_event')
      .values([
        { user_id: userId, consent: 'EMAIL', granted: true, store_code: null, source: 'PROFILE', created_at: T1 },
        { user_id: userId, consent: 'EMAIL', granted: true, store_code: null, source: 'PROFILE', created_at: T2 },
        { user_id: userId, consent: 'EMAIL', granted: false, store_code: null, source: 'PROFILE', created_at: T3 },
      ])
      .execute();
    const email = (await db().selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email;
    const row = { email, language: 'et', source: 'profile', created_at: T1, updated_at: T3 };
    await db()
      .insertInto('newsletter_subscriber')
      .values([
        { ...row, store_code: 'WEB', consented_at: T1, withdrawn_at: null },
        { ...row, store_code: 'WEB2', consented_at: T2, withdrawn_at: T3 },
      ])
      .execute();
    await db().updateTable('app_user').set({ newsletter: true }).where('id', '=', userId).execute();

    await migration.down(db());
    await migration.up(db());

    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await emailConsent(web2.token, 'WEB2')).toEqual({ granted: false, givenAt: iso(T2), withdrawnAt: iso(T3) });
    expect(await emailConsent(web.token, 'WEB')).toEqual({ granted: true, givenAt: iso(T1), withdrawnAt: null });
  });
});
