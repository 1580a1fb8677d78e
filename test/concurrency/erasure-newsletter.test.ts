import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmSubscription } from '../../src/modules/newsletter/newsletter.service.js';
import { duringErasure } from '../gdpr/erasure-helpers.js';
import { createAccountsTestApp, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { confirm, confirmationMailTo, newsletterToken, subscribe, subscriberRows } from '../newsletter/helpers.js';
import { as } from '../profile/helpers.js';

// The erasure deletes the newsletter rows of the person's (confirmed) login email: subscriptions
// and requests. A confirmation link of that address followed at the same moment ends as one of
// them first: confirmed first, its subscription is erased with the rest; after, the link is gone
// (a 400). A new request sent while the erasure runs is a new request for an address nobody holds
// any more, as one sent a moment later: kept, and its link may subscribe the address afresh. On
// PostgreSQL they run at once; SQLite runs them one after the other.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(async () => t?.close());

const requestRows = (email: string) => t.database.db.selectFrom('newsletter_request').select('id').where('email', '=', email).execute();

/** A client whose login email has asked for the newsletter: the link of its confirmation mail, not yet followed. */
async function clientWithConfirmationLink(): Promise<{ client: TestCustomer; email: string; token: string }> {
  const client = await createCustomer(t.database.db);
  const email = await emailOf(t.database.db, client);
  const asked = await subscribe(t, { email, language: 'en' }, { store: 'WEB' });
  expect(asked.statusCode, asked.body).toBe(200);
  return { client, email, token: newsletterToken(await confirmationMailTo(t, email)) };
}

describe('the erasure and a confirmation link of the email at once', () => {
  it('a confirmation in flight when the erasure starts is waited for and its subscription erased', async () => {
    for (let round = 0; round < 3; round++) {
      const { client, email, token } = await clientWithConfirmationLink();
      let erased!: Awaited<ReturnType<ReturnType<typeof as>>>;
      await whileTransactionOpen(
        t.database.db,
        (trx) => confirmSubscription(trx, token, Date.now()),
        async () => (erased = await as(t, client.token)('DELETE', '/client-account', {})),
      );
      expect(erased.statusCode, erased.body).toBe(204);
      expect(await subscriberRows(t, email)).toEqual([]);
      expect(await requestRows(email)).toEqual([]);
    }
  });

  it('a confirmation while the erasure is open waits for it and is a 400: its request is gone', async () => {
    const { client, email, token } = await clientWithConfirmationLink();
    const confirmed = await duringErasure(t, client, () => confirm(t, token));
    expectErrorBody(confirmed, 400, 'Bad Request');
    expect(await subscriberRows(t, email)).toEqual([]);
    expect(await requestRows(email)).toEqual([]);
  });
});

describe('the erasure and a new request for the email at once', () => {
  it('a request sent while the erasure is open is a new one, kept as one sent after it; nothing is subscribed', async () => {
    const client = await createCustomer(t.database.db);
    const email = await emailOf(t.database.db, client);
    const asked = await duringErasure(t, client, () => subscribe(t, { email, language: 'en' }, { store: 'WEB' }));
    expect(asked.statusCode, asked.body).toBe(200);
    expect(await requestRows(email)).toHaveLength(1);
    expect(await subscriberRows(t, email)).toEqual([]);
  });
});
