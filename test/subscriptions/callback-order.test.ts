import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answers, CALLBACK_ORDERS, inOrder } from '../helpers/everypay-order.js';
import type { TestCustomer } from '../helpers/customers.js';
import { engine } from '../helpers/test-app.js';
import {
  DAY,
  bill,
  call,
  chargesOf,
  createCustomer,
  endPeriodASecondAgo,
  mailJobs,
  MIT_PATH,
  mitPayments,
  saveCard,
  secondAccountOf,
  startSubscriptionShop,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { failCommitsOfUpdate } from '../helpers/failing-commit.js';
import { sample, scrape } from '../metrics/metrics-text.js';

// Each subscription payment the shop makes with a saved card (the first month, an upgrade, a renewal)
// is answered by EveryPay's API and announced by its callback; a card being saved is announced by the
// callback and looked up again by the shopper's return. Both orders are forced here, never left to a
// race: the answer (or return) applied first with the callback held until after it, and the callback
// applied first, delivered and answered by the shop while the shop's own call to EveryPay is still
// waiting for its answer. Either way the caller is told the same thing, the card is charged once, the
// charge, subscription and mails are the same, and the same callback again (twice, and twice at once)
// changes nothing.

const METRICS_TOKEN = 'callback-order-metrics-0123456789abcdef';
let s: SubscriptionShop;
beforeAll(async () => {
  // Every test here sends callbacks from one address; the limit is not what is tested.
  s = await startSubscriptionShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m', METRICS_TOKEN });
});
afterAll(async () => s.close());
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});

/** The answer to a payment the card's bank declined. */
const DECLINED = { name: 'Conflict', message: 'Kaardimakse lükati tagasi.', code: expect.any(Number), status: 409 };
const statusPath = (reference: string) => `/api/v4/payments/${reference}`;

/** Card rows with their token opened: what the gateway's token was stored as (sealed at rest, card-tokens.test.ts). */
const opened = <Row extends { id: number | bigint | string; token: string | null }>(rows: Row[]) =>
  rows.map((row) => ({ ...row, token: row.token === null ? null : s.cardTokens.open(row.token, Number(row.id)) }));

/** The same callback again: twice one after the other, then twice at once; each one answered 200. */
async function repeatCallback(reference: string) {
  const sent = [...(await s.everypay.notify(reference)), ...(await s.everypay.notify(reference))];
  sent.push(...(await s.everypay.notify(reference, { times: 2 })));
  expect(answers(sent)).toEqual(Array(4).fill([200, { outcome: 'applied' }]));
}

/** What a subscription's payments left behind: its row, charges, mails, EveryPay's payments and what the client lists. */
async function stateOf(customer: TestCustomer, id: number) {
  const charges = await chargesOf(s, id);
  return {
    row: await subscriptionRow(s, id),
    charges: charges.map((charge) => [charge.purpose, charge.period_number, charge.attempt, charge.state, charge.amount_cents]),
    references: charges.map((charge) => charge.reference),
    mails: await mailJobs(s, id),
    mits: mitPayments(s, id).length,
    payments: charges.map((charge) => s.everypay.paymentsFor(charge.order_reference).length),
    listed: (await call(s, customer, 'GET', '/subscription')).json(),
  };
}

/** The EveryPay payment of a subscription's last charge. */
async function lastPaymentOf(id: number) {
  const charge = (await chargesOf(s, id)).at(-1)!;
  const payments = s.everypay.paymentsFor(charge.order_reference);
  expect(payments).toHaveLength(1);
  expect(charge.reference).toBe(payments[0]!.reference);
  return payments[0]!.reference;
}

/** A client with a saved card whose merchant-initiated charges end as `outcome`. */
async function cardHolder(outcome: 'settled' | 'failed') {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, outcome);
  return customer;
}

describe.each(CALLBACK_ORDERS)('the first month charged at POST /subscription, %s', (order) => {
  it('settled: 201 ACTIVE, charged once, one purchased mail', async () => {
    const customer = await cardHolder('settled');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => subscribe(s, customer, 'SHELF5'));
    expect(result.statusCode, result.body).toBe(201);
    const sub = result.json();
    expect(sub).toMatchObject({ status: 'ACTIVE', plan: { code: 'SHELF5' }, trial: false });
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(customer, sub.id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', period_number: 1, failed_attempts: 0 },
      charges: [['PERIOD', 1, 1, 'settled', 750]],
      mails: ['purchased'],
      mits: 1,
      payments: [1],
    });
    expect(state.listed).toEqual([sub]);
    await repeatCallback(await lastPaymentOf(sub.id));
    expect(await stateOf(customer, sub.id)).toEqual(state);
  });

  it('declined: 409 paymentDeclined, the subscription ENDED, nothing mailed, and the family free again', async () => {
    const customer = await cardHolder('failed');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => subscribe(s, customer, 'SHELF5'));
    expect(result.json()).toEqual(DECLINED);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const [listed] = (await call(s, customer, 'GET', '/subscription')).json();
    const state = await stateOf(customer, listed.id);
    expect(state).toMatchObject({
      row: { status: 'ENDED', live_key: null, period_number: 0 },
      charges: [['PERIOD', 1, 1, 'failed', 750]],
      mails: [],
      mits: 1,
      payments: [1],
      listed: [{ id: listed.id, status: 'ENDED' }],
    });
    await repeatCallback(await lastPaymentOf(listed.id));
    expect(await stateOf(customer, listed.id)).toEqual(state);
  });
});

/** An ACTIVE AUDIO1 subscription paid by card, midway through its period (16 days left), with the card's next charges ending as `outcome`. */
async function midwaySubscriber(outcome: 'settled' | 'failed') {
  const payer = await createCustomer(s.t.database.db);
  await saveCard(s, payer);
  const company = await secondAccountOf(s, payer);
  await saveCard(s, company);
  // The user's trial of the kind goes to the first account; the company's subscription is paid.
  expect((await subscribe(s, payer, 'AUDIO1')).statusCode).toBe(201);
  const sub = (await subscribe(s, company, 'AUDIO1')).json();
  expect(sub.status).toBe('ACTIVE');
  const now = Date.now();
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: now - 14 * DAY, period_end: now + 16 * DAY })
    .where('id', '=', sub.id)
    .execute();
  s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, outcome);
  return { company, id: sub.id as number };
}

describe.each(CALLBACK_ORDERS)('an upgrade charged at PUT /subscription/{id}/plan, %s', (order) => {
  const upgrade = (who: TestCustomer, id: number) => call(s, who, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX });

  it('settled: 200 on the better plan, charged once', async () => {
    const { company, id } = await midwaySubscriber('settled');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => upgrade(company, id));
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toMatchObject({ id, status: 'ACTIVE', plan: { code: 'AUDIOMAX' }, nextPlanId: null });
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(company, id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', plan_id: s.plans.AUDIOMAX, period_number: 1 },
      charges: [
        ['PERIOD', 1, 1, 'settled', 999],
        ['UPGRADE', 1, 1, 'settled', 533],
      ],
      mails: ['purchased'],
      mits: 2,
      payments: [1, 1],
    });
    expect(state.listed).toEqual([result.json()]);
    await repeatCallback(await lastPaymentOf(id));
    expect(await stateOf(company, id)).toEqual(state);
    // Asked again: the plan is already the better one, nothing is charged.
    expect((await upgrade(company, id)).statusCode).toBe(200);
    expect(await stateOf(company, id)).toEqual({ ...state, row: { ...state.row, updated_at: expect.any(Number) } });
  });

  it('declined: 409 paymentDeclined, the plan unchanged, and a new attempt may be made', async () => {
    const { company, id } = await midwaySubscriber('failed');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => upgrade(company, id));
    expect(result.json()).toEqual(DECLINED);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(company, id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', plan_id: s.plans.AUDIO1, period_number: 1 },
      charges: [
        ['PERIOD', 1, 1, 'settled', 999],
        ['UPGRADE', 1, 1, 'failed', 533],
      ],
      mails: ['purchased'],
      mits: 2,
      payments: [1, 1],
      listed: [{ id, status: 'ACTIVE', plan: { code: 'AUDIO1' } }],
    });
    await repeatCallback(await lastPaymentOf(id));
    expect(await stateOf(company, id)).toEqual(state);
  });
});

describe.each(CALLBACK_ORDERS)('a renewal charged by the billing run, %s', (order) => {
  /** A SHELF5 subscriber whose period ended a second ago: the only one the run finds due (the other tests' periods end later). */
  async function dueSubscriber(outcome: 'settled' | 'failed') {
    const customer = await cardHolder('settled');
    const sub = (await subscribe(s, customer, 'SHELF5')).json();
    expect(sub.status).toBe('ACTIVE');
    const end = await endPeriodASecondAgo(s, sub.id);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, outcome);
    return { customer, id: sub.id as number, end };
  }

  it('settled: the run reports it charged; the next period follows without a gap', async () => {
    const { customer, id, end } = await dueSubscriber('settled');
    const { result: report, sent } = await inOrder(s.everypay, order, MIT_PATH, () => bill(s, end + 1000));
    expect(report).toMatchObject({ charged: 1, failed: 0, pending: 0, skipped: 0 });
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(customer, id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', period_number: 2, period_start: end, failed_attempts: 0 },
      charges: [
        ['PERIOD', 1, 1, 'settled', 750],
        ['PERIOD', 2, 1, 'settled', 750],
      ],
      mails: ['purchased'],
      mits: 2,
      payments: [1, 1],
      listed: [{ id, status: 'ACTIVE', currentPeriodStart: new Date(end).toISOString() }],
    });
    await repeatCallback(await lastPaymentOf(id));
    expect(await stateOf(customer, id)).toEqual(state);
    // A second run finds nothing due.
    expect(await bill(s, end + 2000)).toMatchObject({ charged: 0, failed: 0, pending: 0 });
    expect(mitPayments(s, id)).toHaveLength(2);
  });

  it('declined: the run reports it failed; FAILED with a retry, one billingFailed mail', async () => {
    const { customer, id, end } = await dueSubscriber('failed');
    const { result: report, sent } = await inOrder(s.everypay, order, MIT_PATH, () => bill(s, end + 1000));
    expect(report).toMatchObject({ charged: 0, failed: 1, pending: 0, skipped: 0 });
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(customer, id);
    expect(state).toMatchObject({
      row: { status: 'FAILED', period_number: 1, failed_attempts: 1, next_attempt_at: end + DAY },
      charges: [
        ['PERIOD', 1, 1, 'settled', 750],
        ['PERIOD', 2, 1, 'failed', 750],
      ],
      mails: ['purchased', 'billingFailed'],
      mits: 2,
      payments: [1, 1],
      listed: [{ id, status: 'FAILED', nextAttemptAt: new Date(end + DAY).toISOString() }],
    });
    await repeatCallback(await lastPaymentOf(id));
    expect(await stateOf(customer, id)).toEqual(state);
  });
});

describe.each(CALLBACK_ORDERS)('saving a card: the return from EveryPay and its callback, %s', (order) => {
  const flows = { 'answer first': 'return first', 'callback first': 'callback first' } as const;

  /** POST, the shopper on EveryPay's page, then the return with the callback before or after it. */
  async function saveInOrder(customer: TestCustomer, action: 'pay' | 'decline') {
    const started = await call(s, customer, 'POST', '/subscription-credit-card');
    expect(started.statusCode, started.body).toBe(200);
    const reference = (started.json() as { fields: Record<string, string> }).fields.payment_reference!;
    s.everypay.holdCallbacks();
    const back = await s.everypay.shopper(reference, action);
    const from = s.everypay.callbacks.length;
    // The return's own look-up at EveryPay waits while the held callback is delivered and applied.
    if (order === 'callback first') s.everypay.answerAfterCallbacks({ path: statusPath(reference) });
    const response = await fetch(back, { redirect: 'manual' });
    expect(response.status).toBe(303);
    if (order === 'answer first') {
      expect(s.everypay.callbacks.slice(from)).toEqual([]);
      await s.everypay.releaseCallbacks();
    } else {
      expect(s.everypay.callbacks.slice(from).map((callback) => callback.status)).toEqual([200]);
    }
    await s.everypay.callbacksIdle();
    const location = new URL(response.headers.get('location')!, 'http://frontend.invalid');
    return { reference, back, location: `${location.pathname}${location.search}`, sent: s.everypay.callbacks.slice(from) };
  }

  const cardsOf = async (customer: TestCustomer) => ({
    listed: (await call(s, customer, 'GET', '/subscription-credit-card')).json(),
    rows: opened(
      await s.t.database.db
        .selectFrom('subscription_card')
        .select(['id', 'state', 'token', 'is_default'])
        .where('client_account_id', '=', customer.clientAccountId)
        .execute(),
    ),
  });

  it(`paid, ${flows[order]}: saved=true, one ACTIVE default card`, async () => {
    const customer = await createCustomer(s.t.database.db);
    const { reference, location, sent } = await saveInOrder(customer, 'pay');
    const cards = await cardsOf(customer);
    expect(cards.rows).toEqual([
      { id: expect.any(Number), state: 'ACTIVE', token: s.everypay.payment(reference)!.card!.token, is_default: expect.anything() },
    ]);
    expect(Boolean(cards.rows[0]!.is_default)).toBe(true);
    const id = Number(cards.rows[0]!.id);
    expect(location).toBe(`/account/subscription-cards?cardId=${id}&saved=true`);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    expect(cards.listed).toMatchObject([{ id, isDefault: true, lastFour: '1002' }]);
    await repeatCallback(reference);
    expect(await cardsOf(customer)).toEqual(cards);
  });

  it(`declined, ${flows[order]}: saved=false, the card DECLINED with no token and listed nowhere`, async () => {
    const customer = await createCustomer(s.t.database.db);
    const { reference, location, sent } = await saveInOrder(customer, 'decline');
    expect(location).toMatch(/^\/account\/subscription-cards\?cardId=\d+&saved=false$/);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const cards = await cardsOf(customer);
    const id = Number(new URL(location, 'http://frontend.invalid').searchParams.get('cardId'));
    expect(cards).toEqual({ listed: [], rows: [{ id, state: 'DECLINED', token: null, is_default: expect.anything() }] });
    expect(Boolean(cards.rows[0]!.is_default)).toBe(false);
    await repeatCallback(reference);
    expect(await cardsOf(customer)).toEqual(cards);
    // Not taken for an unknown payment: the orders' callback inbox never saw it.
    const inbox = await s.t.database.db.selectFrom('payment_callback').select('outcome').where('reference', '=', reference).execute();
    expect(inbox).toEqual([]);
  });

  it(`declined, ${flows[order]}, then settled after all: the late callback saves the card, listed, the default, and it pays`, async () => {
    const customer = await createCustomer(s.t.database.db);
    const { reference, back, location } = await saveInOrder(customer, 'decline');
    expect(location).toMatch(/^\/account\/subscription-cards\?cardId=\d+&saved=false$/);
    const id = Number(new URL(location, 'http://frontend.invalid').searchParams.get('cardId'));
    // Declined: listed nowhere, and no route takes it for a saved card.
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toEqual([]);
    expect((await call(s, customer, 'PUT', `/subscription-credit-card/${id}/default`)).statusCode).toBe(404);
    expect((await subscribe(s, customer, 'SHELF5', id)).statusCode).toBe(422);
    // The card's bank approves it after all: EveryPay settles the payment, saves the card and tells the shop.
    const late = await s.everypay.settle(reference);
    expect(answers(late)).toEqual([[200, { outcome: 'applied' }]]);
    const token = s.everypay.payment(reference)!.card!.token;
    const cards = await cardsOf(customer);
    expect(cards.rows).toEqual([{ id, state: 'ACTIVE', token, is_default: expect.anything() }]);
    expect(Boolean(cards.rows[0]!.is_default)).toBe(true);
    expect(cards.listed).toEqual([expect.objectContaining({ id, isDefault: true, lastFour: '1002' })]);
    // The shopper's return link now says saved; the callback again changes nothing.
    const again = await fetch(back, { redirect: 'manual' });
    expect(again.headers.get('location')).toMatch(new RegExp(`\\?cardId=${id}&saved=true$`));
    await repeatCallback(reference);
    expect(await cardsOf(customer)).toEqual(cards);
    // It is a saved card like any other: a subscription is paid with it.
    s.everypay.setCardOutcome(token, 'settled');
    const sub = await subscribe(s, customer, 'SHELF5', id);
    expect(sub.statusCode, sub.body).toBe(201);
    expect(sub.json()).toMatchObject({ status: 'ACTIVE', cardId: id });
  });
});

// EveryPay may answer a charge while the card's bank is still deciding (sent_for_processing) and send
// the callback with the decision right after. When the answer is applied first the shop cannot know
// more than "pending"; when the callback came first, the charge is decided and the caller is told so.
describe.each(CALLBACK_ORDERS)('a charge EveryPay answers while the bank is still deciding, %s', (order) => {
  const upgrade = (who: TestCustomer, id: number) => call(s, who, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX });
  const processing = (outcome: 'settled' | 'failed') =>
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, outcome, { processing: true });

  it('the first month settled: 201, PENDING until the callback, ACTIVE once it came; one purchased mail', async () => {
    const customer = await cardHolder('settled');
    processing('settled');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => subscribe(s, customer, 'SHELF5'));
    expect(result.statusCode, result.body).toBe(201);
    expect(result.json().status).toBe(order === 'answer first' ? 'PENDING' : 'ACTIVE');
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(customer, result.json().id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', period_number: 1 },
      charges: [['PERIOD', 1, 1, 'settled', 750]],
      mails: ['purchased'],
      mits: 1,
      payments: [1],
    });
    await repeatCallback(await lastPaymentOf(result.json().id));
    expect(await stateOf(customer, result.json().id)).toEqual(state);
  });

  it('the first month declined: 201 PENDING until the callback, or 409 once it came; ENDED either way', async () => {
    const customer = await cardHolder('settled');
    processing('failed');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => subscribe(s, customer, 'SHELF5'));
    if (order === 'answer first') {
      expect(result.statusCode, result.body).toBe(201);
      expect(result.json().status).toBe('PENDING');
    } else expect(result.json()).toEqual(DECLINED);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const [listed] = (await call(s, customer, 'GET', '/subscription')).json();
    const state = await stateOf(customer, listed.id);
    expect(state).toMatchObject({
      row: { status: 'ENDED', live_key: null },
      charges: [['PERIOD', 1, 1, 'failed', 750]],
      // Told the payment was being processed (201 PENDING), the customer is mailed that it did not start; told 409, nothing.
      mails: order === 'answer first' ? ['startDeclined'] : [],
      mits: 1,
    });
    await repeatCallback(await lastPaymentOf(listed.id));
    expect(await stateOf(customer, listed.id)).toEqual(state);
  });

  it('an upgrade settled: 503 paymentPending until the callback, 200 on the better plan once it came', async () => {
    const { company, id } = await midwaySubscriber('settled');
    processing('settled');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => upgrade(company, id));
    if (order === 'answer first') expect(result.statusCode, result.body).toBe(503);
    else {
      expect(result.statusCode, result.body).toBe(200);
      expect(result.json()).toMatchObject({ id, plan: { code: 'AUDIOMAX' } });
    }
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(company, id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', plan_id: s.plans.AUDIOMAX },
      charges: [
        ['PERIOD', 1, 1, 'settled', 999],
        ['UPGRADE', 1, 1, 'settled', 533],
      ],
      // Told the payment was being processed (503), the customer is mailed the upgrade active; told 200, nothing.
      mails: order === 'answer first' ? ['purchased', 'upgradeConfirmed'] : ['purchased'],
      mits: 2,
    });
    await repeatCallback(await lastPaymentOf(id));
    expect(await stateOf(company, id)).toEqual(state);
  });

  it('an upgrade declined: 503 paymentPending until the callback, 409 once it came; the plan unchanged', async () => {
    const { company, id } = await midwaySubscriber('settled');
    processing('failed');
    const { result, sent } = await inOrder(s.everypay, order, MIT_PATH, () => upgrade(company, id));
    if (order === 'answer first') expect(result.statusCode, result.body).toBe(503);
    else expect(result.json()).toEqual(DECLINED);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    const state = await stateOf(company, id);
    expect(state).toMatchObject({
      row: { status: 'ACTIVE', plan_id: s.plans.AUDIO1 },
      charges: [
        ['PERIOD', 1, 1, 'settled', 999],
        ['UPGRADE', 1, 1, 'failed', 533],
      ],
      // Told the payment was being processed (503), the customer is mailed the decline; told 409, nothing.
      mails: order === 'answer first' ? ['purchased', 'upgradeDeclined'] : ['purchased'],
      mits: 2,
    });
    await repeatCallback(await lastPaymentOf(id));
    expect(await stateOf(company, id)).toEqual(state);
  });

  it('a renewal settled: the run reports it pending until the callback, charged once it came', async () => {
    const customer = await cardHolder('settled');
    const sub = (await subscribe(s, customer, 'SHELF5')).json();
    const end = await endPeriodASecondAgo(s, sub.id);
    processing('settled');
    const { result: report } = await inOrder(s.everypay, order, MIT_PATH, () => bill(s, end + 1000));
    expect(report).toMatchObject(order === 'answer first' ? { charged: 0, pending: 1 } : { charged: 1, pending: 0 });
    expect(await stateOf(customer, sub.id)).toMatchObject({
      row: { status: 'ACTIVE', period_number: 2, period_start: end },
      charges: [
        ['PERIOD', 1, 1, 'settled', 750],
        ['PERIOD', 2, 1, 'settled', 750],
      ],
      mails: ['purchased'],
      mits: 2,
    });
  });
});

describe('saving a card: the return reads a decline, the callback brings the card saved after all', () => {
  it('the callback applied first keeps the card; the return then reads it saved', async () => {
    const customer = await createCustomer(s.t.database.db);
    const started = await call(s, customer, 'POST', '/subscription-credit-card');
    const reference = (started.json() as { fields: Record<string, string> }).fields.payment_reference!;
    const payment = s.everypay.payment(reference)!;
    // EveryPay's page declined it and has not told the shop yet; the return reads that, then EveryPay
    // settles it (the shopper paid after all) and its callback is applied before the return goes on.
    payment.state = 'failed';
    const back = new URL(payment.customerUrl);
    back.searchParams.set('payment_reference', reference);
    await s.everypay.callbacksIdle();
    const from = s.everypay.callbacks.length;
    s.everypay.answerAfterCallbacks({ path: statusPath(reference), andThen: () => s.everypay.settle(reference) });
    const response = await fetch(back, { redirect: 'manual' });
    expect(response.status).toBe(303);
    await s.everypay.callbacksIdle();
    expect(answers(s.everypay.callbacks.slice(from))).toEqual([[200, { outcome: 'applied' }]]);
    const rows = await s.t.database.db
      .selectFrom('subscription_card')
      .select(['id', 'state', 'token'])
      .where('client_account_id', '=', customer.clientAccountId)
      .execute();
    expect(opened(rows)).toEqual([{ id: expect.any(Number), state: 'ACTIVE', token: payment.card!.token }]);
    expect(new URL(response.headers.get('location')!, 'http://frontend.invalid').search).toBe(`?cardId=${rows[0]!.id}&saved=true`);
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toMatchObject([
      { id: Number(rows[0]!.id), isDefault: true },
    ]);
    await repeatCallback(reference);
    expect(
      await s.t.database.db
        .selectFrom('subscription_card')
        .select(['id', 'state', 'token'])
        .where('client_account_id', '=', customer.clientAccountId)
        .execute(),
    ).toEqual(rows);
  });
});

// The same two at the same moment (orders' 5b000cf): EveryPay's answer to the shop's charge read the
// payment still with the bank, or declined, just before the bank approved it, and the shop applies that
// answer while the callback bringing the settle holds the charge's row. On PostgreSQL a statement
// there reads the rows as they were before the callback's commit; the charge is finished by an update
// whose condition (still pending) is checked again under the row's lock, so the older answer changes
// nothing. SQLite writes one transaction at a time (the callback is applied first there, and the same
// must come out).
describe('the answer to a charge is applied while the callback settling it holds the charge', () => {
  /**
   * PostgreSQL: runs `during` while a transaction holds the subscription's row, so the callback's
   * transaction, which finished the charge, waits there with the charge's row locked. SQLite: runs it,
   * holding nothing (an open transaction would keep the shop from writing at all).
   */
  async function holdingSubscriptionOnPostgres(id: number, during: () => Promise<void>) {
    if (engine !== 'postgres') return during();
    await s.t.database.db.transaction().execute(async (trx) => {
      await trx.selectFrom('subscription').select('id').where('id', '=', id).forUpdate().execute();
      await during();
    });
  }

  it.each(['sent_for_processing', 'failed'] as const)(
    'a renewal, the answer read %s: the charge stays settled, the run reports it charged, the next period follows',
    async (read) => {
      const customer = await cardHolder('settled');
      const sub = (await subscribe(s, customer, 'SHELF5')).json();
      expect(sub.status).toBe('ACTIVE');
      const end = await endPeriodASecondAgo(s, sub.id);
      const token = s.everypay.cards().at(-1)!.token;
      // sent_for_processing: EveryPay answers so and settles it right after; failed: it answers the
      // decline, and the bank approves it after all (settled below).
      if (read === 'sent_for_processing') s.everypay.setCardOutcome(token, 'settled', { processing: true });
      else s.everypay.setCardOutcome(token, 'failed');
      await s.everypay.callbacksIdle();
      const from = s.everypay.callbacks.length;
      s.everypay.holdCallbacks();
      const asked = () => mitPayments(s, sub.id).length;
      let answer!: () => void;
      s.everypay.answerLate(MIT_PATH, new Promise<void>((resolve) => (answer = resolve)));
      const run = bill(s, end + 1000);
      await until('the run to charge the card', () => asked() === 2);
      const charge = (await chargesOf(s, sub.id)).at(-1)!;
      const reference = s.everypay.paymentsFor(charge.order_reference)[0]!.reference;
      if (read === 'failed') await s.everypay.settle(reference);
      expect(s.everypay.payment(reference)!.state).toBe('settled');
      await holdingSubscriptionOnPostgres(sub.id, async () => {
        const callbacks = s.everypay.releaseCallbacks();
        // PostgreSQL: the callback finished the charge and waits for the subscription; SQLite: it is applied.
        if (engine === 'postgres')
          await until('the callback to wait for the subscription', async () => (await lockWaiters(s.t.database.db)) >= 1);
        else await callbacks;
        // EveryPay's answer, as the payment stood when the shop asked, arrives now.
        answer();
        if (engine === 'postgres') await until('the answer to wait for the charge', async () => (await lockWaiters(s.t.database.db)) >= 2);
      });
      const report = await run;
      await s.everypay.callbacksIdle();
      expect(report).toMatchObject({ charged: 1, failed: 0, pending: 0 });
      expect(answers(s.everypay.callbacks.slice(from)).every(([status]) => status === 200)).toBe(true);
      expect(await stateOf(customer, sub.id)).toMatchObject({
        row: { status: 'ACTIVE', period_number: 2, period_start: end, failed_attempts: 0, next_attempt_at: null },
        charges: [
          ['PERIOD', 1, 1, 'settled', 750],
          ['PERIOD', 2, 1, 'settled', 750],
        ],
        references: [expect.any(String), reference],
        mails: ['purchased'],
        mits: 2,
        payments: [1, 1],
      });
    },
  );
});

// storefront_payments_total counted the statuses applied to orders only: those of a subscription's
// charges and cards, whose callbacks subscriptions apply (orders' otherPayments), and the answers to
// its own charges went uncounted. They are counted apart from orders' (applied_to), in the orders'
// words of the outcome, once their transaction committed.
describe('storefront_payments_total', () => {
  it("counts what a saved card's and a subscription's charges' statuses did, apart from orders', once committed", async () => {
    const counts = async (state: string) => {
      const text = await scrape(s.t, METRICS_TOKEN);
      const of = (appliedTo: string, outcome: string) =>
        sample(text, 'storefront_payments_total', { gateway: 'everypay', state, applied_to: appliedTo, outcome }) ?? 0;
      return {
        card: { applied: of('saved_card', 'applied'), duplicate: of('saved_card', 'duplicate') },
        charge: { applied: of('subscription_charge', 'applied'), duplicate: of('subscription_charge', 'duplicate') },
        order: { applied: of('order', 'applied'), duplicate: of('order', 'duplicate') },
      };
    };
    const settledBefore = await counts('settled');
    // The card saved by the shopper's return, then its callback finding it saved.
    const customer = await createCustomer(s.t.database.db);
    s.everypay.holdCallbacks();
    await saveCard(s, customer);
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    // The first month charged by POST /subscription (EveryPay's answer), then its callback.
    s.everypay.holdCallbacks();
    const sub = (await subscribe(s, customer, 'SHELF5')).json();
    expect(sub.status).toBe('ACTIVE');
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await counts('settled')).toEqual({
      card: { applied: settledBefore.card.applied + 1, duplicate: settledBefore.card.duplicate + 1 },
      charge: { applied: settledBefore.charge.applied + 1, duplicate: settledBefore.charge.duplicate + 1 },
      order: settledBefore.order,
    });

    // A renewal the bank decides after EveryPay answered: the answer (still pending) moves nothing; the
    // callback bringing the settle is applied in a transaction whose COMMIT fails, and counts nothing.
    const end = await endPeriodASecondAgo(s, sub.id);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'settled', { processing: true });
    const stale = async () =>
      sample(await scrape(s.t, METRICS_TOKEN), 'storefront_payments_total', {
        gateway: 'everypay',
        state: 'pending',
        applied_to: 'subscription_charge',
        outcome: 'stale',
      }) ?? 0;
    const staleBefore = await stale();
    s.everypay.holdCallbacks();
    expect(await bill(s, end + 1000)).toMatchObject({ charged: 0, pending: 1 });
    expect(await stale()).toBe(staleBefore + 1);
    const renewal = (await chargesOf(s, sub.id)).at(-1)!;
    const repair = await failCommitsOfUpdate(s.t.database, 'subscription_charge', 'state', Number(renewal.id));
    let sent;
    try {
      sent = await s.everypay.releaseCallbacks();
    } finally {
      await repair();
    }
    expect(sent.map((callback) => callback.status)).not.toContain(200);
    const settledNow = await counts('settled');
    expect(settledNow.charge.applied).toBe(settledBefore.charge.applied + 1);
    // EveryPay's retry is applied, and counted.
    const reference = s.everypay.paymentsFor(renewal.order_reference)[0]!.reference;
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await counts('settled')).charge.applied).toBe(settledBefore.charge.applied + 2);
  });
});
