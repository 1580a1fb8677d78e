import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { as } from './helpers.js';

// The consent history has one writer (newsletter's insertConsentEvent) for the profile's switch of
// every consent: one form that changes EMAIL, SMS and PERSONALISATION in a store records one row
// each with that store, the PROFILE source and the action's time, and tells partners of each change
// once (one consent.changed per channel), as it did while the profile wrote its own rows.

// Behind the system clock, which the worker claims by: the mails it queues are due to it.
const clock = fixedClock(Date.now() - 86_400_000);
let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ clock });
});
afterAll(() => t.close());

it("records each consent the profile's form changes once, with the store, the source and the action's time, and one partner event each", async () => {
  const email = uniqueEmail('history-shape');
  const token = await registerVerified(t, email, 'WEB2');
  const userId = Number((await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id);
  const before = await t.database.db.selectFrom('marketing_consent_event').select('id').where('user_id', '=', userId).execute();
  expect(before).toEqual([]);
  const eventsBefore = Number(
    (
      await t.database.db
        .selectFrom('integration_event')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('type', '=', 'consent.changed')
        .where('stream', '=', `customer:${userId}`)
        .executeTakeFirstOrThrow()
    ).n,
  );

  clock.advance(60_000);
  const at = clock.now();
  const changed = await as(t, token, 'WEB2')('PUT', '/client-account', {
    marketingConsents: { email: true, sms: true, personalisation: true },
  });
  expect(changed.statusCode, changed.body).toBe(200);

  const rows = await t.database.db
    .selectFrom('marketing_consent_event')
    .select(['consent', 'granted', 'store_code', 'source', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('consent')
    .execute();
  expect(rows.map((row) => ({ ...row, granted: Boolean(row.granted), created_at: Number(row.created_at) }))).toEqual([
    { consent: 'EMAIL', granted: true, store_code: 'WEB2', source: 'PROFILE', created_at: at },
    { consent: 'PERSONALISATION', granted: true, store_code: 'WEB2', source: 'PROFILE', created_at: at },
    { consent: 'SMS', granted: true, store_code: 'WEB2', source: 'PROFILE', created_at: at },
  ]);

  const events = await t.database.db
    .selectFrom('integration_event')
    .select(['data', 'created_at'])
    .where('type', '=', 'consent.changed')
    .where('stream', '=', `customer:${userId}`)
    .orderBy('sequence')
    .execute();
  const told = events.slice(eventsBefore).map((event) => {
    const data = JSON.parse(event.data) as { channel: string; store: string; granted: boolean; source: string };
    return { channel: data.channel, store: data.store, granted: data.granted, source: data.source, at: Number(event.created_at) };
  });
  expect(told.sort((a, b) => a.channel.localeCompare(b.channel))).toEqual([
    { channel: 'EMAIL', store: 'WEB2', granted: true, source: 'profile', at },
    { channel: 'PERSONALISATION', store: 'WEB2', granted: true, source: 'profile', at },
    { channel: 'SMS', store: 'WEB2', granted: true, source: 'profile', at },
  ]);

  // The same form again changes nothing: no row, no event.
  clock.advance(60_000);
  const again = await as(t, token, 'WEB2')('PUT', '/client-account', {
    marketingConsents: { email: true, sms: true, personalisation: true },
  });
  expect(again.statusCode, again.body).toBe(200);
  expect(await t.database.db.selectFrom('marketing_consent_event').select('id').where('user_id', '=', userId).execute()).toHaveLength(3);
  const eventsAfter = await t.database.db
    .selectFrom('integration_event')
    .select('id')
    .where('type', '=', 'consent.changed')
    .where('stream', '=', `customer:${userId}`)
    .execute();
  expect(eventsAfter).toHaveLength(eventsBefore + 3);
});
