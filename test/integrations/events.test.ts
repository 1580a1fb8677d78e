import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, register, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { engine } from '../helpers/test-app.js';
import { emitEvent } from '../../src/modules/events/index.js';
import { createWebhookDispatcher, eventFeedCommand } from '../../src/modules/integrations/index.js';
import { addEndpoint } from '../../src/modules/integrations/webhooks.service.js';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import { fixedClock, systemClock } from '../../src/infra/clock.js';
import { personalDataParts } from '../../src/modules/gdpr/index.js';
import { eraseByEmail } from '../../src/modules/gdpr/gdpr.service.js';
import { backOfficeImport, book } from './helpers.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { subscribeConfirmed } from '../newsletter/helpers.js';

// The events the writers emit in their transactions, and the pull feed that serves them.

let t: AccountsTestApp;
let token: string;
beforeAll(async () => {
  t = await createAccountsTestApp();
  token = await feedClient('platform');
});
afterAll(() => t.close());

async function feedClient(name: string): Promise<string> {
  const lines: string[] = [];
  await eventFeedCommand({ db: t.database.db, clock: systemClock }, ['add', name], (line) => lines.push(line));
  return lines.at(-1)!;
}

interface FeedEvent {
  position: number;
  id: number;
  type: string;
  stream: string;
  sequence: number;
  occurredAt: string;
  data: Record<string, unknown>;
}

const feed = (query: string, bearer: string | null = token) =>
  t.app.inject({
    method: 'GET',
    url: `/integration/events${query}`,
    headers: { 'x-app-language': 'en', ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }) },
  });

/** Every event in the feed, read page by page. */
async function allEvents(limit = 50): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let after = '0';
  for (;;) {
    const page = (await feed(`?after=${after}&limit=${limit}`)).json() as { events: FeedEvent[]; next: string };
    events.push(...page.events);
    if (page.events.length === 0) return events;
    after = page.next;
  }
}

describe('events of the writers', () => {
  it('customer.created when someone registers, customer.updated and consent.changed when the profile changes', async () => {
    await register(t, 'events-reader@example.ee');
    const user = await t.database.db
      .selectFrom('app_user')
      .select('id')
      .where('email', '=', 'events-reader@example.ee')
      .executeTakeFirstOrThrow();
    const created = (await allEvents()).filter((event) => event.stream === `customer:${user.id}`);
    expect(created).toMatchObject([
      { type: 'customer.created', sequence: 1, data: { email: 'events-reader@example.ee', firstName: 'Mari' } },
    ]);

    const alice = await createCustomer(t.database.db, { firstName: 'Alice' });
    const put = await t.app.inject({
      method: 'PUT',
      url: '/client-account',
      headers: { store: 'WEB', authorization: `Bearer ${alice.token}` },
      payload: { lastName: 'Kask', marketingConsents: { email: true, sms: true } },
    });
    expect(put.statusCode, put.body).toBe(200);
    const userId = await userIdOf(t.database.db, alice);
    const events = (await allEvents()).filter((event) => event.stream === `customer:${userId}`);
    expect(events.map((event) => [event.type, event.sequence, event.data.channel ?? null])).toEqual([
      ['consent.changed', 1, 'EMAIL'],
      ['consent.changed', 2, 'SMS'],
      ['customer.updated', 3, null],
    ]);
    expect(events[0]!.data).toMatchObject({ granted: true, store: 'WEB', source: 'profile' });
    expect(events[2]!.data).toMatchObject({ firstName: 'Alice', lastName: 'Kask' });
  });

  it("order events in the customer's stream (a guest's in the email's), with the status change", async () => {
    await backOfficeImport(t, 'products', [book('EV-1')]);
    const product = await t.database.db.selectFrom('product').select(['id', 'code']).where('code', '=', 'EV-1').executeTakeFirstOrThrow();
    const bob = await createCustomer(t.database.db);
    const order = await insertOrder(t.database.db, {
      status: 'NEW',
      lines: [{ productId: product.id, productCode: product.code }],
      clientAccountId: bob.clientAccountId,
    });
    const guest = await insertOrder(t.database.db, {
      status: 'NEW',
      lines: [{ productId: product.id, productCode: product.code }],
      billingEmail: 'Guest@Example.ee',
    });
    await t.database.db.transaction().execute(async (trx) => {
      await moveOrder(trx, { orderId: order.id, from: 'NEW', to: 'CANCELLED', cause: 'test', now: Date.now() });
      await moveOrder(trx, { orderId: guest.id, from: 'NEW', to: 'CANCELLED', cause: 'test', now: Date.now() });
    });
    const userId = await userIdOf(t.database.db, bob);
    const events = (await allEvents()).filter((event) => event.type === 'order.status-changed');
    expect(events.map((event) => [event.stream, event.data.code, event.data.previousStatus, event.data.status])).toEqual([
      [`customer:${userId}`, order.code, 'NEW', 'CANCELLED'],
      ['email:guest@example.ee', guest.code, 'NEW', 'CANCELLED'],
    ]);
  });

  it('product.changed for products a feed created or changed (not for unchanged ones), product.deactivated for dropped ones', async () => {
    await backOfficeImport(t, 'products', [book('EV-1'), book('EV-2'), book('EV-3')]);
    await backOfficeImport(t, 'products', [book('EV-1'), book('EV-2', { shopPrice: 5 })]);
    const events = (await allEvents()).filter((event) => event.stream.startsWith('product:EV-'));
    expect(events.map((event) => `${event.type} ${event.stream}#${event.sequence}`)).toEqual([
      'product.changed product:EV-1#1',
      'product.changed product:EV-2#1',
      'product.changed product:EV-3#1',
      'product.changed product:EV-2#2',
      'product.deactivated product:EV-3#2',
    ]);
    expect(events[3]!.data).toMatchObject({ code: 'EV-2', shopPrice: 5, active: true, change: 'feed' });
  });

  it("product.changed when a shop's flags change the web stock of the products it stocks (and none when they do not)", async () => {
    const shop = { code: 'EV-SHOP', names: { et: 'Pood' }, city: 'Tallinn', webStock: true };
    await backOfficeImport(t, 'shops', [shop]);
    await backOfficeImport(t, 'products', [book('EV-1'), book('EV-2'), book('EV-S1'), book('EV-S2')]);
    await backOfficeImport(t, 'stock', [
      { product: 'EV-S1', shop: 'EV-SHOP', quantity: 4 },
      { product: 'EV-S2', shop: 'EV-SHOP', quantity: 0 },
    ]);
    const stockEvents = async () =>
      (await allEvents()).filter((event) => event.stream === 'product:EV-S1' || event.stream === 'product:EV-S2');
    const before = (await stockEvents()).length;
    // The shop's stock is no longer sold on the web: EV-S1's web stock goes from 4 to 0, EV-S2's stays 0.
    const off = await backOfficeImport(t, 'shops', [{ ...shop, webStock: false }]);
    expect(off.reported).toEqual([]);
    const events = (await stockEvents()).slice(before);
    expect(events.map((event) => [event.stream, event.data.change, event.data.webStock])).toEqual([['product:EV-S1', 'stock', 0]]);
  });

  it('writes no event when the transaction of the change rolls back', async () => {
    const before = (await allEvents()).length;
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        await emitEvent(trx, { type: 'customer.updated', stream: 'customer:rollback', data: {} }, Date.now());
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect((await allEvents()).length).toBe(before);
  });
});

describe('events and erasure', () => {
  it("blanks a person's events when their data is erased and tells the platforms with customer.erased", async () => {
    await register(t, 'erase-me@example.ee');
    const user = await t.database.db
      .selectFrom('app_user')
      .select('id')
      .where('email', '=', 'erase-me@example.ee')
      .executeTakeFirstOrThrow();
    await eraseByEmail(t.database.db, personalDataParts, 'erase-me@example.ee', Date.now());
    const events = (await allEvents()).filter((event) => event.stream === `customer:${user.id}`);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['customer.created', { erased: true }],
      ['customer.erased', { customerId: user.id }],
    ]);
    expect(JSON.stringify(await allEvents())).not.toContain('erase-me@example.ee');
  });

  it("leaves no event in a stream named by the erased person's email (their guest orders before they registered)", async () => {
    const product = await t.database.db.selectFrom('product').select(['id', 'code']).where('code', '=', 'EV-1').executeTakeFirstOrThrow();
    const carol = await createCustomer(t.database.db);
    const userId = await userIdOf(t.database.db, carol);
    const { email } = await t.database.db.selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    const guest = await insertOrder(t.database.db, {
      status: 'NEW',
      lines: [{ productId: product.id, productCode: product.code }],
      billingEmail: email.toUpperCase(),
    });
    await t.database.db
      .transaction()
      .execute((trx) => moveOrder(trx, { orderId: guest.id, from: 'NEW', to: 'CANCELLED', cause: 'test', now: Date.now() }));
    const before = await allEvents(1000);
    expect(before.filter((event) => event.stream === `email:${email}`).map((event) => event.type)).toEqual(['order.status-changed']);
    // A platform's webhook that is failing: the event's delivery is still waiting at the erasure.
    const receiver = await startWebhookReceiver();
    await addEndpoint(
      t.database.db,
      { name: 'erasure-crm', url: receiver.url, eventTypes: 'order.', maxAttempts: 5, fromStart: true },
      Date.now(),
    );
    const clock = fixedClock(Date.now());
    const dispatcher = createWebhookDispatcher({ db: t.database.db, log: t.app.log, clock, backoffBaseMs: 1000 });
    receiver.answer = () => 500;
    await dispatcher.runOnce();
    expect(receiver.received.map((r) => r.body.stream)).toContain(`email:${email}`);

    // A guest who typed the address the erasure will leave has a stream of that address: no clash.
    const typed = await insertOrder(t.database.db, {
      status: 'NEW',
      lines: [{ productId: product.id, productCode: product.code }],
      billingEmail: `erased-${userId}@erased.invalid`,
    });
    await t.database.db
      .transaction()
      .execute((trx) => moveOrder(trx, { orderId: typed.id, from: 'NEW', to: 'CANCELLED', cause: 'test', now: Date.now() }));

    await eraseByEmail(t.database.db, personalDataParts, email, Date.now());
    receiver.received.length = 0;
    receiver.answer = () => 200;
    clock.advance(60_000);
    await dispatcher.runOnce();
    await receiver.close();
    expect(receiver.received.map((r) => r.body.stream)).toContain(`email:erased-${userId}`);
    expect(JSON.stringify(receiver.received.map((r) => r.body))).not.toContain(email);
    const deliveries = await t.database.db.selectFrom('webhook_delivery').select('stream').where('stream', 'like', `%${email}%`).execute();
    expect(deliveries).toEqual([]);
    const after = await allEvents(1000);
    // The order's event stays (its position and sequence whole), blanked, in a stream no address names.
    const moved = after.find((event) => event.id === before.find((old) => old.stream === `email:${email}`)!.id)!;
    expect(moved).toMatchObject({ stream: `email:erased-${userId}`, sequence: 1, data: { erased: true } });
    expect(JSON.stringify(after)).not.toContain(email);
    const streams = await t.database.db.selectFrom('integration_stream').select('stream').where('stream', 'like', `%${email}%`).execute();
    expect(streams).toEqual([]);
  });
});

describe('consent events of an address whose user has not confirmed it', () => {
  it("go to the address's stream, not to the account of a user who signed up with it unconfirmed", async () => {
    const mallory = await createCustomer(t.database.db);
    const userId = await userIdOf(t.database.db, mallory);
    const { email } = await t.database.db.selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    // A social sign-up the provider did not vouch for: the address is not shown to be this user's.
    await t.database.db.insertInto('unconfirmed_login_email').values({ user_id: userId, since: Date.now() }).execute();
    // The address's owner subscribes through the mail sent to it.
    await subscribeConfirmed(t, email);
    const consents = (await allEvents(1000)).filter((event) => event.type === 'consent.changed' && event.data.email === email);
    expect(consents.map((event) => [event.stream, event.data.customerId])).toEqual([[`email:${email}`, null]]);
    const exported = await t.app.inject({
      method: 'GET',
      url: '/client-account/export',
      headers: { store: 'WEB', authorization: `Bearer ${mallory.token}` },
    });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().partnerEvents.filter((event: { type: string }) => event.type === 'consent.changed')).toEqual([]);
  });
});

describe('GET /integration/events', () => {
  it('pages by cursor in position order, every event once, and answers the same cursor when nothing is new', async () => {
    const all = await allEvents(1000);
    const paged = await allEvents(3);
    expect(paged.map((event) => event.id)).toEqual(all.map((event) => event.id));
    expect(new Set(all.map((event) => event.position)).size).toBe(all.length);
    expect(all.map((event) => event.position)).toEqual([...all.map((event) => event.position)].sort((a, b) => a - b));
    const last = all.at(-1)!.position;
    expect((await feed(`?after=${last}`)).json()).toEqual({ events: [], next: String(last) });
    expect(all[0]!.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
  });

  it('needs a feed client token: 401 without one, with a wrong or revoked one; 400 for a bad cursor', async () => {
    expectErrorBody(await feed('', null), 401, 'Unauthorized');
    expectErrorBody(await feed('', 'x'.repeat(43)), 401, 'Unauthorized');
    const revoked = await feedClient('revoked');
    expect((await feed('', revoked)).statusCode).toBe(200);
    await eventFeedCommand({ db: t.database.db, clock: systemClock }, ['revoke', 'revoked'], () => {});
    const refused = await feed('', revoked);
    expectErrorBody(refused, 401, 'Unauthorized');
    expect(refused.headers['www-authenticate']).toContain('invalid_token');
    expectErrorBody(await feed('?after=-1'), 400, 'Bad Request');
    expectErrorBody(await feed('?after=abc'), 400, 'Bad Request');
    expectErrorBody(await feed('?limit=0'), 400, 'Bad Request');
    expectErrorBody(await feed('?limit=1001'), 400, 'Bad Request');
  });

  it.runIf(engine === 'postgres')(
    'never positions an event below one a poller has seen: an event committed late comes after the cursor',
    async () => {
      const { last } = await (async () => {
        const events = await allEvents(1000);
        return { last: events.at(-1)?.position ?? 0 };
      })();
      let commitLate!: () => void;
      const lateCommitted = new Promise<void>((resolve) => (commitLate = resolve));
      let written!: () => void;
      const lateWritten = new Promise<void>((resolve) => (written = resolve));
      // The late transaction takes its id first and commits last.
      const late = t.database.db.transaction().execute(async (trx) => {
        await emitEvent(trx, { type: 'customer.updated', stream: 'customer:late', data: {} }, Date.now());
        written();
        await lateCommitted;
      });
      await lateWritten;
      await t.database.db
        .transaction()
        .execute((trx) => emitEvent(trx, { type: 'customer.updated', stream: 'customer:early', data: {} }, Date.now()));
      const first = (await feed(`?after=${last}`)).json() as { events: FeedEvent[]; next: string };
      expect(first.events.map((event) => event.stream)).toEqual(['customer:early']);
      commitLate();
      await late;
      const second = (await feed(`?after=${first.next}`)).json() as { events: FeedEvent[]; next: string };
      expect(second.events.map((event) => event.stream)).toEqual(['customer:late']);
      expect(second.events[0]!.id).toBeLessThan(first.events[0]!.id);
    },
  );
});
