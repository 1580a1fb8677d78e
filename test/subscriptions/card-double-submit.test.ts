import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RESUBMIT_WINDOW_MS } from '../../src/infra/resubmit.js';
import { LOST_START_MS } from '../../src/modules/subscriptions/cards.service.js';
import { emailOf, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { call, createCustomer, saveCard, secondAccountOf, startSubscriptionShop, type SubscriptionShop } from './helpers.js';
import { until, withTableHeld } from '../helpers/lock-waits.js';

// POST /subscription-credit-card sent again (a double click, a retry after a timeout) while the card
// it started is still being saved is answered the first one's redirect form: one card row, one
// card-saving payment at EveryPay. Two at once end the same. Once that card is saved or declined, or
// after the resubmit window, a POST starts another card (a second card, another try).
// DELETE /subscription-credit-card/{id} removes a saved card only: one being saved or declined is
// listed nowhere and is the same 404 as an unknown id.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
afterEach(async () => {
  s.everypay.breakApi(null);
  await s.everypay.callbacksIdle();
});

const ONEOFF = '/api/v4/payments/oneoff';
type Form = { url: string; method: string; fields: Record<string, string> };

const start = (customer: TestCustomer) => call(s, customer, 'POST', '/subscription-credit-card');

/** The card-saving payments EveryPay was asked to create for this client's user (by its email): their order references. */
async function oneoffsOf(customer: TestCustomer): Promise<string[]> {
  const email = await emailOf(s.t.database.db, customer);
  return s.everypay.requests
    .filter((request) => request.path === ONEOFF)
    .map((request) => request.body as { order_reference: string; email: string })
    .filter((body) => body.email === email)
    .map((body) => body.order_reference);
}

const cardRows = (customer: TestCustomer) =>
  s.t.database.db
    .selectFrom('subscription_card')
    .select(['id', 'state', 'order_reference', 'payment_reference', 'redirect', 'created_at'])
    .where('client_account_id', '=', customer.clientAccountId)
    .orderBy('id')
    .execute();

/** The shopper on EveryPay's page of `form`, then back at the shop: the card's id from the front-end redirect. */
async function finish(form: Form, action: 'pay' | 'decline'): Promise<number> {
  const back = await s.everypay.shopper(form.fields.payment_reference!, action);
  const response = await fetch(back, { redirect: 'manual' });
  expect(response.status).toBe(303);
  await s.everypay.callbacksIdle();
  return Number(new URL(response.headers.get('location')!, 'http://frontend.invalid').searchParams.get('cardId'));
}

describe('POST /subscription-credit-card twice', () => {
  it('one after the other: the same form, one pending card, one payment at EveryPay; paying it saves one card', async () => {
    const customer = await createCustomer(s.t.database.db);
    const first = await start(customer);
    expect(first.statusCode, first.body).toBe(200);
    const again = await start(customer);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    const rows = await cardRows(customer);
    expect(rows).toEqual([
      expect.objectContaining({ state: 'PENDING', payment_reference: (first.json() as Form).fields.payment_reference }),
    ]);
    // The form kept is what the shopper's browser is sent to, nothing more.
    expect(JSON.parse(rows[0]!.redirect!)).toEqual(first.json());
    expect(await oneoffsOf(customer)).toEqual([rows[0]!.order_reference]);
    expect(s.everypay.paymentsFor(rows[0]!.order_reference)).toHaveLength(1);
    const id = await finish(first.json() as Form, 'pay');
    expect(id).toBe(Number(rows[0]!.id));
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toMatchObject([{ id, isDefault: true }]);
  });

  it('at once: both answer the one form; one card, one payment at EveryPay', async () => {
    const customer = await createCustomer(s.t.database.db);
    const [one, two] = await Promise.all([start(customer), start(customer)]);
    expect([one.statusCode, two.statusCode], `${one.body} ${two.body}`).toEqual([200, 200]);
    expect(two.json()).toEqual(one.json());
    const rows = await cardRows(customer);
    expect(rows).toHaveLength(1);
    expect(await oneoffsOf(customer)).toEqual([rows[0]!.order_reference]);
  });

  it('at once, both past their look-up before either writes its card (PostgreSQL: the card table held): one card', async () => {
    const customer = await createCustomer(s.t.database.db);
    // Each start's insert of its card waits on the held table, after its look-up found none unless the
    // client's lock made the second wait for the first one's commit.
    const answers = await withTableHeld(s.t.database.db, 'subscription_card', () => Promise.all([start(customer), start(customer)]));
    const [one, two] = answers;
    expect([one.statusCode, two.statusCode], `${one.body} ${two.body}`).toEqual([200, 200]);
    expect(two.json()).toEqual(one.json());
    expect(await cardRows(customer)).toHaveLength(1);
    expect(await oneoffsOf(customer)).toHaveLength(1);
  });

  it("the second while EveryPay has not answered the first: it waits for the first one's form", async () => {
    const customer = await createCustomer(s.t.database.db);
    const asked = () => s.everypay.requests.filter((request) => request.path === ONEOFF).length;
    const before = asked();
    let answer!: () => void;
    s.everypay.answerLate(ONEOFF, new Promise<void>((resolve) => (answer = resolve)));
    const first = start(customer);
    await until('the first to ask EveryPay', () => asked() > before);
    // The first one's card is committed, without a form yet: the second finds it and waits.
    expect(await cardRows(customer)).toEqual([expect.objectContaining({ state: 'PENDING', redirect: null })]);
    let secondDone = false;
    const second = start(customer).then((response) => {
      secondDone = true;
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondDone).toBe(false);
    answer();
    const [one, two] = await Promise.all([first, second]);
    expect([one.statusCode, two.statusCode], `${one.body} ${two.body}`).toEqual([200, 200]);
    expect(two.json()).toEqual(one.json());
    expect(await cardRows(customer)).toHaveLength(1);
    expect(asked()).toBe(before + 1);
  });

  it('the first one failing at EveryPay: the one waiting for it gets the same 503; nothing is left, and a new POST starts a card', async () => {
    const customer = await createCustomer(s.t.database.db);
    const asked = () => s.everypay.requests.filter((request) => request.path === ONEOFF).length;
    const before = asked();
    // No answer: the shop gives up after EVERYPAY_TIMEOUT_MS (1.5 s in the tests).
    s.everypay.breakApi('hang', 1, ONEOFF);
    const first = start(customer);
    await until('the first to ask EveryPay', () => asked() > before);
    const second = start(customer);
    const [one, two] = await Promise.all([first, second]);
    expectErrorBody(one, 503, 'Service Unavailable');
    expectErrorBody(two, 503, 'Service Unavailable');
    expect(two.json()).toEqual(one.json());
    expect(asked()).toBe(before + 1);
    expect(await cardRows(customer)).toEqual([]);
    const retried = await start(customer);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(await cardRows(customer)).toHaveLength(1);
    expect(asked()).toBe(before + 2);
  });

  it('a start whose gateway call never ended (its process died) is not waited for once LOST_START_MS passed', async () => {
    const customer = await createCustomer(s.t.database.db);
    const first = await start(customer);
    expect(first.statusCode).toBe(200);
    const [row] = await cardRows(customer);
    // As a process dying between its card and EveryPay's answer leaves it: no form, started a while ago.
    await s.t.database.db
      .updateTable('subscription_card')
      .set({ redirect: null, created_at: Date.now() - LOST_START_MS - 1000 })
      .where('id', '=', row!.id)
      .execute();
    const next = await start(customer);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json()).not.toEqual(first.json());
    expect((await cardRows(customer)).map((card) => card.state)).toEqual(['PENDING', 'PENDING']);
    expect(await oneoffsOf(customer)).toHaveLength(2);
  });

  it('a start still waiting for EveryPay after 10 seconds: 409, try again shortly', async () => {
    const customer = await createCustomer(s.t.database.db);
    const first = await start(customer);
    expect(first.statusCode).toBe(200);
    const [row] = await cardRows(customer);
    // Another request's gateway call, under way for 10 seconds.
    await s.t.database.db.updateTable('subscription_card').set({ redirect: null }).where('id', '=', row!.id).execute();
    const waited = await start(customer);
    expectErrorBody(waited, 409, 'Conflict');
    expect(waited.headers['retry-after']).toBe('2');
    expect(await cardRows(customer)).toHaveLength(1);
    expect(await oneoffsOf(customer)).toHaveLength(1);
  }, 20_000);
});

describe('POST /subscription-credit-card again, not a repeat', () => {
  it('after the card was saved, or declined, a new card is started (a second card, another try)', async () => {
    const customer = await createCustomer(s.t.database.db);
    const saved = await saveCard(s, customer);
    const declined = await saveCard(s, customer, 'decline');
    const third = await start(customer);
    expect(third.statusCode, third.body).toBe(200);
    const rows = await cardRows(customer);
    expect(rows.map((row) => [Number(row.id), row.state])).toEqual([
      [saved, 'ACTIVE'],
      [declined, 'DECLINED'],
      [expect.any(Number), 'PENDING'],
    ]);
    expect(new Set(rows.map((row) => row.payment_reference)).size).toBe(3);
    expect(await oneoffsOf(customer)).toHaveLength(3);
  });

  it('after the resubmit window a new card is started; the old pending one waits for its gateway or pruning', async () => {
    const customer = await createCustomer(s.t.database.db);
    const first = await start(customer);
    await s.t.database.db
      .updateTable('subscription_card')
      .set({ created_at: Date.now() - RESUBMIT_WINDOW_MS - 1000 })
      .where('client_account_id', '=', customer.clientAccountId)
      .execute();
    const later = await start(customer);
    expect(later.statusCode, later.body).toBe(200);
    expect(later.json()).not.toEqual(first.json());
    expect((await cardRows(customer)).map((row) => row.state)).toEqual(['PENDING', 'PENDING']);
    expect(await oneoffsOf(customer)).toHaveLength(2);
  });

  it('another client account of the same user starts its own card', async () => {
    const customer = await createCustomer(s.t.database.db);
    const company = await secondAccountOf(s, customer);
    const [own, companys] = await Promise.all([start(customer), start(company)]);
    expect([own.statusCode, companys.statusCode]).toEqual([200, 200]);
    expect(companys.json()).not.toEqual(own.json());
    expect(await cardRows(customer)).toHaveLength(1);
    expect(await cardRows(company)).toHaveLength(1);
  });
});

describe('DELETE /subscription-credit-card/{id} of a card not saved', () => {
  /** The 404 of an id no card has, to compare with. */
  const unknown = async (customer: TestCustomer) => {
    const response = await call(s, customer, 'DELETE', '/subscription-credit-card/987654321');
    return expectErrorBody(response, 404, 'Not Found');
  };

  it('declined: 404 as an unknown id; the card stays, and a late settle still saves it', async () => {
    const customer = await createCustomer(s.t.database.db);
    const started = (await start(customer)).json() as Form;
    const id = await finish(started, 'decline');
    const before = await cardRows(customer);
    expect(before).toEqual([expect.objectContaining({ id, state: 'DECLINED' })]);
    const refused = await call(s, customer, 'DELETE', `/subscription-credit-card/${id}`);
    const body = expectErrorBody(refused, 404, 'Not Found');
    const other = await unknown(customer);
    expect(body.code).toBe(other.code);
    expect(body.message).toBe(other.message.replace('987654321', String(id)));
    expect(await cardRows(customer)).toEqual(before);
    await s.everypay.settle(started.fields.payment_reference!);
    await s.everypay.callbacksIdle();
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toMatchObject([{ id, isDefault: true }]);
  });

  it('being saved: 404 as an unknown id; the card stays, and paying it saves it', async () => {
    const customer = await createCustomer(s.t.database.db);
    const started = (await start(customer)).json() as Form;
    const [row] = await cardRows(customer);
    const id = Number(row!.id);
    const refused = await call(s, customer, 'DELETE', `/subscription-credit-card/${id}`);
    const body = expectErrorBody(refused, 404, 'Not Found');
    expect(body.message).toBe((await unknown(customer)).message.replace('987654321', String(id)));
    expect(await cardRows(customer)).toEqual([row]);
    expect(await finish(started, 'pay')).toBe(id);
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toMatchObject([{ id, isDefault: true }]);
    // Saved, it is removed like any other.
    expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${id}`)).statusCode).toBe(204);
    expect(await cardRows(customer)).toEqual([]);
  });
});
