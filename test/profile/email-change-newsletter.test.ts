import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changeEmailConfirmed,
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  registerVerified,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { subscribeConfirmed, subscriberRows } from '../newsletter/helpers.js';
import { as } from './helpers.js';

// The newsletter subscription is the person's: a confirmed change of the login email moves it to the
// new address (its consent time and language kept), the old address stops getting it at once, and
// withdrawing the consent afterwards unsubscribes the address that is the login now. Before, the
// subscription stayed at the old address: the profile showed the consent given, and withdrawing it
// left the old address subscribed.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

const db = () => t.database.db;

/** The address's rows as the export and the mails see them: store, language, source, consent time, subscribed. */
async function rowsOf(email: string) {
  const rows = await subscriberRows(t, email);
  return rows
    .map((row) => ({
      store: row.store_code,
      language: row.language,
      source: row.source,
      consentedAt: Number(row.consented_at),
      subscribed: row.withdrawn_at === null,
    }))
    .sort((a, b) => a.store.localeCompare(b.store));
}

async function consentEventsOf(userId: number, afterId: number) {
  const events = await db()
    .selectFrom('integration_event')
    .select(['id', 'data'])
    .where('stream', '=', `customer:${userId}`)
    .where('type', '=', 'consent.changed')
    .where('id', '>', afterId)
    .orderBy('id')
    .execute();
  return events.map((event) => {
    const data = JSON.parse(event.data);
    return { email: data.email, store: data.store, granted: data.granted };
  });
}

const lastEventId = async () =>
  Number(
    (
      await db()
        .selectFrom('integration_event')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst()
    )?.id ?? 0,
  );

const userIdOfEmail = async (email: string) =>
  Number((await db().selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id);

describe('a confirmed email change and the newsletter', () => {
  it('moves every store’s subscription to the new address with its consent time and language; withdrawing then unsubscribes it', async () => {
    const oldEmail = uniqueEmail('nl-old');
    const newEmail = uniqueEmail('nl-new');
    const access = await registerVerified(t, oldEmail);
    const call = as(t, access);
    expect((await call('PUT', '/client-account/preferences', { newsletterLanguage: 'ru' })).statusCode).toBe(200);
    expect((await call('PUT', '/client-account', { marketingConsents: { email: true } })).json().marketingConsents.email.granted).toBe(
      true,
    );
    // The same address subscribed in the other store through the form (double opt-in).
    await subscribeConfirmed(t, oldEmail, 'en', 'WEB2');
    const before = await rowsOf(oldEmail);
    expect(before.map((row) => [row.store, row.language, row.source, row.subscribed])).toEqual([
      ['WEB', 'ru', 'profile', true],
      ['WEB2', 'en', 'website', true],
    ]);
    const userId = await userIdOfEmail(oldEmail);
    const since = await lastEventId();

    await changeEmailConfirmed(t, access, newEmail);

    const profile = (await call('GET', '/client-account')).json();
    expect(profile.email).toBe(newEmail);
    expect(profile.marketingConsents.email.granted).toBe(true);
    // The old address gets nothing more and keeps nothing of the person's; the new one has their
    // subscriptions as they were.
    expect(await rowsOf(oldEmail)).toEqual([]);
    expect(await rowsOf(newEmail)).toEqual(before);
    // The partner sees the old address leave and the new one arrive, in the person's stream.
    expect(await consentEventsOf(userId, since)).toEqual([
      { email: oldEmail, store: 'WEB', granted: false },
      { email: newEmail, store: 'WEB', granted: true },
      { email: oldEmail, store: 'WEB2', granted: false },
      { email: newEmail, store: 'WEB2', granted: true },
    ]);

    // The switch of each store withdraws that store's subscription; the flag follows the last.
    const withdrawn = (await call('PUT', '/client-account', { marketingConsents: { email: false } })).json();
    expect(withdrawn.marketingConsents.email.granted).toBe(false);
    expect((await rowsOf(newEmail)).map((row) => row.subscribed)).toEqual([false, true]);
    const web2 = (await login(t, newEmail, GOOD_PASSWORD, 'WEB2')).json().accessToken as string;
    const withdrawn2 = (await as(t, web2, 'WEB2')('PUT', '/client-account', { marketingConsents: { email: false } })).json();
    expect(withdrawn2.marketingConsents.email.granted).toBe(false);
    expect((await rowsOf(newEmail)).map((row) => row.subscribed)).toEqual([false, false]);
    expect(await rowsOf(oldEmail)).toEqual([]);
    const flag = await db().selectFrom('app_user').select('newsletter').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(Boolean(flag.newsletter)).toBe(false);
  });

  it('keeps one row per store when the new address was subscribed already, with the earlier consent time', async () => {
    const oldEmail = uniqueEmail('nl-merge-old');
    const newEmail = uniqueEmail('nl-merge-new');
    const access = await registerVerified(t, oldEmail);
    await as(t, access)('PUT', '/client-account', { marketingConsents: { email: true } });
    await subscribeConfirmed(t, oldEmail, 'en', 'WEB2');
    // The new address on the form in both stores, before it was the login; in WEB2 it withdrew since.
    await subscribeConfirmed(t, newEmail, 'et', 'WEB');
    await subscribeConfirmed(t, newEmail, 'et', 'WEB2');
    const setConsent = (email: string, store: string, consentedAt: number, withdrawnAt: number | null = null) =>
      db()
        .updateTable('newsletter_subscriber')
        .set({ consented_at: consentedAt, withdrawn_at: withdrawnAt })
        .where('email', '=', email)
        .where('store_code', '=', store)
        .execute();
    const early = Date.UTC(2025, 0, 1);
    const late = Date.UTC(2026, 0, 1);
    // WEB: the new address's consent is the earlier; WEB2: the old one's, and the new one had withdrawn.
    await setConsent(oldEmail, 'WEB', late);
    await setConsent(newEmail, 'WEB', early);
    await setConsent(oldEmail, 'WEB2', early);
    await setConsent(newEmail, 'WEB2', late, late + 1);
    const userId = await userIdOfEmail(oldEmail);
    const since = await lastEventId();

    await changeEmailConfirmed(t, access, newEmail);

    expect(await rowsOf(newEmail)).toEqual([
      { store: 'WEB', language: 'et', source: 'profile', consentedAt: early, subscribed: true },
      { store: 'WEB2', language: 'en', source: 'website', consentedAt: early, subscribed: true },
    ]);
    expect(await rowsOf(oldEmail)).toEqual([]);
    // WEB's new address was subscribed already: only its old address leaves.
    expect(await consentEventsOf(userId, since)).toEqual([
      { email: oldEmail, store: 'WEB', granted: false },
      { email: oldEmail, store: 'WEB2', granted: false },
      { email: newEmail, store: 'WEB2', granted: true },
    ]);
  });

  it("leaves nothing under the former address that the person's data export or erasure would miss", async () => {
    const oldEmail = uniqueEmail('nl-erase-old');
    const newEmail = uniqueEmail('nl-erase-new');
    const access = await registerVerified(t, oldEmail);
    const call = as(t, access);
    await call('PUT', '/client-account', { marketingConsents: { email: true } });
    await subscribeConfirmed(t, oldEmail, 'en', 'WEB2');
    await changeEmailConfirmed(t, access, newEmail);

    const exported = (await call('GET', '/client-account/export')).json();
    expect(exported.newsletter.subscriptions.map((row: { store: string; subscribed: boolean }) => [row.store, row.subscribed])).toEqual([
      ['WEB', true],
      ['WEB2', true],
    ]);
    expect(await rowsOf(oldEmail)).toEqual([]);
    const erased = await call('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    expect([...(await rowsOf(oldEmail)), ...(await rowsOf(newEmail))]).toEqual([]);
    const requests = await db().selectFrom('newsletter_request').select('id').where('email', 'in', [oldEmail, newEmail]).execute();
    expect(requests).toEqual([]);
  });

  it('moves nothing from an old login email the user never confirmed: its subscriptions are its owner’s', async () => {
    const oldEmail = uniqueEmail('nl-unconfirmed');
    const newEmail = uniqueEmail('nl-proved');
    const access = await registerVerified(t, oldEmail);
    // The owner of the mailbox subscribed it; the account's claim to the address was never proved.
    await subscribeConfirmed(t, oldEmail, 'en', 'WEB');
    const userId = await userIdOfEmail(oldEmail);
    await db().insertInto('unconfirmed_login_email').values({ user_id: userId, since: Date.now() }).execute();

    await changeEmailConfirmed(t, access, newEmail);

    expect((await rowsOf(oldEmail)).map((row) => row.subscribed)).toEqual([true]);
    expect(await rowsOf(newEmail)).toEqual([]);
    const profile = (await as(t, access)('GET', '/client-account')).json();
    expect(profile.marketingConsents.email.granted).toBe(false);
  });
});
