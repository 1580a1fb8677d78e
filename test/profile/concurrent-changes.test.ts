import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// Two changes of one client's profile or preferences at once (a double submit, two tabs): the
// second must see what the first wrote. The rows the requests write are held so that on
// PostgreSQL both have read before either commits; on SQLite the requests run one after the other.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.database.db;

/** Sends the requests while `hold` keeps a transaction with the rows they write open; answers them in order. */
async function whileHeld(
  hold: Parameters<typeof whileTransactionOpen>[1],
  requests: () => Array<Promise<LightMyRequestResponse>>,
): Promise<LightMyRequestResponse[]> {
  let answers: LightMyRequestResponse[] = [];
  await whileTransactionOpen(db(), hold, async () => (answers = await Promise.all(requests())));
  return answers;
}

describe('PUT /client-account twice at once', () => {
  it('records a consent change once, with one consent.changed event', async () => {
    const client = await createCustomer(db());
    const userId = await userIdOf(db(), client);
    const call = as(t, client.token);
    const body = { marketingConsents: { sms: true } };
    const answers = await whileHeld(
      // The user's row, as the profile's update writes it (an update to itself locks it on both engines).
      (trx) =>
        trx
          .updateTable('app_user')
          .set((eb) => ({ updated_at: eb.ref('updated_at') }))
          .where('id', '=', userId)
          .execute(),
      () => [call('PUT', '/client-account', body), call('PUT', '/client-account', body)],
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    // PostgreSQL: both read the consent as not given, and both recorded giving it.
    const consents = await db()
      .selectFrom('marketing_consent_event')
      .select(['consent', 'granted'])
      .where('user_id', '=', userId)
      .execute();
    expect(consents).toEqual([{ consent: 'SMS', granted: expect.anything() }]);
    const events = await db()
      .selectFrom('integration_event')
      .select('data')
      .where('stream', '=', `customer:${userId}`)
      .where('type', '=', 'consent.changed')
      .execute();
    expect(events.map((event) => JSON.parse(event.data))).toEqual([expect.objectContaining({ channel: 'SMS', granted: true })]);
    expect((await call('GET', '/client-account')).json().marketingConsents.sms.granted).toBe(true);
  });
});

describe('PUT /client-account/preferences twice at once', () => {
  it('keeps both partial changes', async () => {
    const client = await createCustomer(db());
    const call = as(t, client.token);
    // A saved row, which both updates then write.
    expect((await call('PUT', '/client-account/preferences', { newsletterLanguage: 'en' })).statusCode).toBe(200);
    const answers = await whileHeld(
      (trx) =>
        trx
          .updateTable('client_preference')
          .set((eb) => ({ updated_at: eb.ref('updated_at') }))
          .where('client_account_id', '=', client.clientAccountId)
          .execute(),
      () => [
        call('PUT', '/client-account/preferences', { channels: { sms: true } }),
        call('PUT', '/client-account/preferences', { notifications: { backInStock: false } }),
      ],
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    // PostgreSQL: each merged its change into the preferences both had read, and the later save undid the other's.
    expect((await call('GET', '/client-account/preferences')).json()).toEqual({
      newsletterLanguage: 'en',
      channels: { email: true, sms: true },
      notifications: { orderUpdates: true, backInStock: false, wishlistOffers: false },
    });
  });
});
