import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmSubscription } from '../../src/modules/newsletter/newsletter.service.js';
import { duringErasure } from '../gdpr/erasure-helpers.js';
import { createAccountsTestApp, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, emailOf, type TestCustomer, userIdOf } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import {
  confirm,
  confirmationMailTo,
  newsletterToken,
  oneClick,
  oneClickPath,
  subscribe,
  subscribeConfirmed,
  subscriberRows,
} from '../newsletter/helpers.js';
import { as } from '../profile/helpers.js';

// The erasure deletes the newsletter rows of the person's (confirmed) login email: subscriptions
// and requests. A confirmation link of that address followed at the same moment ends as one of
// them first: confirmed first, its subscription is erased with the rest; after, the link is gone
// (a 400). A new request sent while the erasure runs is a new request for an address nobody holds
// any more, as one sent a moment later: kept, and its link may subscribe the address afresh. On
// PostgreSQL they run at once; SQLite runs them one after the other. So do an unsubscribe link and a
// withdrawal of the consent (PUT /client-account): whichever comes first, no deadlock, and nothing of the
// address is left after the erasure.

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

const eventsOfStream = (stream: string) =>
  t.database.db.selectFrom('integration_event').select(['type', 'data']).where('stream', '=', stream).orderBy('id').execute();

/** The person's events say only that they were erased. */
async function expectOnlyErasedEvents(client: TestCustomer) {
  const told = await eventsOfStream(`customer:${await userIdOf(t.database.db, client)}`);
  expect(told.filter((event) => event.data !== '{"erased":true}').map((event) => event.type)).toEqual(['customer.erased']);
}

/** Nothing of the person is left: no newsletter rows of the email, no event naming it, and their events say only that they were erased. */
async function expectNothingLeft(client: TestCustomer, email: string) {
  expect(await subscriberRows(t, email)).toEqual([]);
  expect(await requestRows(email)).toEqual([]);
  expect(await eventsOfStream(`email:${email}`)).toEqual([]);
  await expectOnlyErasedEvents(client);
}

/** A client whose login email is subscribed; the unsubscribe link of its mails. */
async function subscribedClient(): Promise<{ client: TestCustomer; email: string; unsubscribePath: string }> {
  const client = await createCustomer(t.database.db);
  const email = await emailOf(t.database.db, client);
  return { client, email, unsubscribePath: oneClickPath(await subscribeConfirmed(t, email)) };
}

const erase = (client: TestCustomer) => as(t, client.token)('DELETE', '/client-account', {});

describe('the erasure and an unsubscribe link of the email at once', () => {
  it('an unsubscribe holding the subscription is waited for, and the erasure takes what it wrote', async () => {
    const { client, email, unsubscribePath } = await subscribedClient();
    const [unsubscribed, erased] = await firstHoldingThenSecond(
      t.database.db,
      'app_user',
      () => oneClick(t, unsubscribePath),
      () => erase(client),
    );
    expect(unsubscribed.statusCode, unsubscribed.body).toBe(200);
    expect(erased.statusCode, erased.body).toBe(204);
    await expectNothingLeft(client, email);
  });

  it('an unsubscribe that meets the erasure holding the subscription waits for it and finds nothing to withdraw', async () => {
    const { client, email, unsubscribePath } = await subscribedClient();
    const [erased, unsubscribed] = await firstHoldingThenSecond(
      t.database.db,
      'app_user',
      () => erase(client),
      () => oneClick(t, unsubscribePath),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expect(unsubscribed.statusCode, unsubscribed.body).toBe(200);
    await expectNothingLeft(client, email);
  });
});

describe('the erasure and a withdrawal of the consent everywhere (PUT /client-account) at once', () => {
  const withdraw = (client: TestCustomer) => as(t, client.token)('PUT', '/client-account', { marketingConsents: { email: false } });

  it('a withdrawal holding the person is waited for, and the erasure takes what it wrote', async () => {
    const { client, email } = await subscribedClient();
    const [withdrawn, erased] = await firstHoldingThenSecond(
      t.database.db,
      'app_user',
      () => withdraw(client),
      () => erase(client),
    );
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(erased.statusCode, erased.body).toBe(204);
    await expectNothingLeft(client, email);
  });

  it('a withdrawal that meets the erasure holding the person waits for it and is a 401', async () => {
    const { client, email } = await subscribedClient();
    const [erased, withdrawn] = await firstHoldingThenSecond(
      t.database.db,
      'app_user',
      () => erase(client),
      () => withdraw(client),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expectErrorBody(withdrawn, 401, 'Unauthorized');
    await expectNothingLeft(client, email);
  });
});

// A user whose login email nobody confirmed (a social sign-up before c508fc7 kept the provider's
// address, which migration 0840 marked): the address's newsletter rows are its owner's, not the
// user's, and the erasure leaves them; but a link of the address followed by its owner writes the
// user's newsletter flag and consent event (the user of the email), which the erasure writes too.
describe("the erasure of a user holding an address unconfirmed and its owner's newsletter links at once", () => {
  /** A client whose login email is marked unconfirmed, and the address's own subscription, made by its owner. */
  async function unconfirmedClientOfSubscribedAddress() {
    const { client, email, unsubscribePath } = await subscribedClient();
    await t.database.db
      .insertInto('unconfirmed_login_email')
      .values({ user_id: await userIdOf(t.database.db, client), since: Date.now() })
      .execute();
    return { client, email, unsubscribePath };
  }
  // The erasure holds the person and their event stream when it meets the wholesale_request table held,
  // which it writes before the user's row. The other order is the first describe's: the link, holding
  // the person, is waited for.
  const heldTable = 'wholesale_request';

  it("an unsubscribe that meets the erasure holding the person waits for it, and the owner's subscription is withdrawn", async () => {
    const { client, email, unsubscribePath } = await unconfirmedClientOfSubscribedAddress();
    const [erased, unsubscribed] = await firstHoldingThenSecond(
      t.database.db,
      heldTable,
      () => erase(client),
      () => oneClick(t, unsubscribePath),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expect(unsubscribed.statusCode, unsubscribed.body).toBe(200);
    expect((await subscriberRows(t, email)).map((row) => row.withdrawn_at !== null)).toEqual([true]);
    await expectOnlyErasedEvents(client);
  });

  it("a confirmation that meets the erasure holding the person waits for it, and subscribes the owner's address", async () => {
    const { client, email } = await unconfirmedClientOfSubscribedAddress();
    const asked = await subscribe(t, { email, language: 'en' }, { store: 'WEB2' });
    expect(asked.statusCode, asked.body).toBe(200);
    const token = newsletterToken(await confirmationMailTo(t, email));
    const [erased, confirmed] = await firstHoldingThenSecond(
      t.database.db,
      heldTable,
      () => erase(client),
      () => confirm(t, token),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect((await subscriberRows(t, email)).map((row) => row.store_code).sort()).toEqual(['WEB', 'WEB2']);
    await expectOnlyErasedEvents(client);
  });
});
