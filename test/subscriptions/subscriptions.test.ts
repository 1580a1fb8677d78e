import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proratedCents } from '../../src/modules/subscriptions/periods.js';
import { until } from '../helpers/lock-waits.js';
import {
  DAY,
  bill,
  call,
  chargesOf,
  createCustomer,
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

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

describe('subscribing', () => {
  it('gives a trial once per user and per client account, for each kind of plan', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const first = await subscribe(s, customer, 'AUDIO1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ status: 'TRIAL', trial: true, plan: { code: 'AUDIO1' }, cancelAtPeriodEnd: false });
    const end = Date.parse(first.json().currentPeriodEnd) - Date.parse(first.json().currentPeriodStart);
    expect(end).toBe(14 * DAY);
    expect(await mailJobs(s, first.json().id)).toEqual(['purchased']);
    // One live subscription per family.
    expect((await subscribe(s, customer, 'AUDIOMAX')).statusCode).toBe(409);
    // Cancelled and over: a new AUDIO_CREDITS subscription is charged at once, no second trial.
    await call(s, customer, 'DELETE', `/subscription/${first.json().id}`);
    await bill(s, Date.now() + 15 * DAY);
    const again = await subscribe(s, customer, 'AUDIO1');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ status: 'ACTIVE', trial: false });
    expect((await chargesOf(s, again.json().id)).map((c) => [c.state, c.amount_cents])).toEqual([['settled', 999]]);
    // The same user's other client account had no trial of its own, but the user had: charged.
    const company = await secondAccountOf(s, customer);
    await saveCard(s, company);
    const other = await subscribe(s, company, 'AUDIO1');
    expect(other.json()).toMatchObject({ status: 'ACTIVE', trial: false });
    // A plan without trial days is charged at once.
    const shelf = await subscribe(s, company, 'SHELF5');
    expect(shelf.json()).toMatchObject({ status: 'ACTIVE', trial: false });
    // A kind of plan the user never tried: its own trial.
    const unlimitedBuyer = await createCustomer(s.t.database.db);
    await saveCard(s, unlimitedBuyer);
    expect((await subscribe(s, unlimitedBuyer, 'AUDIOMAX')).json()).toMatchObject({ status: 'TRIAL', plan: { code: 'AUDIOMAX' } });
  });

  it('refuses bad input with 4xx: no card, unknown or foreign plan and card, wrong types', async () => {
    const customer = await createCustomer(s.t.database.db);
    const stranger = await createCustomer(s.t.database.db);
    const noCard = await subscribe(s, customer, 'AUDIO1');
    expect(noCard.statusCode).toBe(422);
    const strangersCard = await saveCard(s, stranger);
    expect((await subscribe(s, customer, 'AUDIO1', strangersCard)).statusCode).toBe(422);
    await saveCard(s, customer);
    expect((await call(s, customer, 'POST', '/subscription', { planId: 999999 })).statusCode).toBe(422);
    expect((await call(s, customer, 'POST', '/subscription', { planId: s.plans.OLD })).statusCode).toBe(422);
    expect((await call(s, customer, 'POST', '/subscription', { planId: '1' })).statusCode).toBe(422);
    expect((await call(s, customer, 'POST', '/subscription', {})).statusCode).toBe(422);
    expect((await call(s, null, 'POST', '/subscription', { planId: s.plans.AUDIO1 })).statusCode).toBe(401);
    const web2 = await s.t.app.inject({
      method: 'POST',
      url: '/subscription',
      headers: { authorization: `Bearer ${customer.token}`, store: 'WEB2' },
      payload: { planId: s.plans.SHELF5 },
    });
    expect(web2.statusCode).toBe(401);
    expect((await call(s, customer, 'PUT', '/subscription/0/plan', { planId: 1 })).statusCode).toBe(400);
    expect((await call(s, customer, 'DELETE', '/subscription/99999999')).statusCode).toBe(404);
  });

  it('a declined first charge is a 409 and the subscription never starts', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'failed');
    const declined = await subscribe(s, customer, 'SHELF5');
    expect(declined.statusCode).toBe(409);
    const listed = (await call(s, customer, 'GET', '/subscription')).json();
    expect(listed).toMatchObject([{ status: 'ENDED' }]);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'settled');
    expect((await subscribe(s, customer, 'SHELF5')).statusCode).toBe(201);
  });

  it('GET /subscription is paged (page, per-page, X-Pagination-*), newest first, ended ones too', async () => {
    // Every declined first month leaves an ENDED subscription: a client's list only grows.
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const token = s.everypay.cards().at(-1)!.token;
    s.everypay.setCardOutcome(token, 'failed');
    for (let n = 0; n < 3; n += 1) expect((await subscribe(s, customer, 'SHELF5')).statusCode).toBe(409);
    s.everypay.setCardOutcome(token, 'settled');
    expect((await subscribe(s, customer, 'SHELF5')).statusCode).toBe(201);
    const all = (await call(s, customer, 'GET', '/subscription')).json() as { id: number; status: string }[];
    expect(all.map((sub) => sub.status)).toEqual(['ACTIVE', 'ENDED', 'ENDED', 'ENDED']);
    const first = await call(s, customer, 'GET', '/subscription?per-page=3');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().map((sub: { id: number }) => sub.id)).toEqual(all.slice(0, 3).map((sub) => sub.id));
    expect(first.headers).toMatchObject({
      'x-pagination-current-page': '1',
      'x-pagination-page-count': '2',
      'x-pagination-per-page': '3',
      'x-pagination-total-count': '4',
    });
    const second = await call(s, customer, 'GET', '/subscription?page=2&per-page=3');
    expect(second.json().map((sub: { id: number }) => sub.id)).toEqual([all[3]!.id]);
    expect((await call(s, customer, 'GET', '/subscription?page=0')).statusCode).toBe(400);
  });

  it('every id-taking route checks ownership', async () => {
    const owner = await createCustomer(s.t.database.db);
    const other = await createCustomer(s.t.database.db);
    await saveCard(s, owner);
    await saveCard(s, other);
    const sub = (await subscribe(s, owner, 'SHELF5')).json();
    expect((await call(s, other, 'PUT', `/subscription/${sub.id}/plan`, { planId: s.plans.SHELF5 })).statusCode).toBe(404);
    expect((await call(s, other, 'DELETE', `/subscription/${sub.id}`)).statusCode).toBe(404);
    expect((await call(s, other, 'GET', '/subscription')).json()).toEqual([]);
    expect((await subscriptionRow(s, sub.id)).cancel_at_period_end).toBeFalsy();
  });
});

/** An AUDIO1 subscription paid by card (no trial): the user's trial is used up on their other account first. */
async function paidSubscription() {
  const payer = await createCustomer(s.t.database.db);
  await saveCard(s, payer);
  const company = await secondAccountOf(s, payer);
  await saveCard(s, company);
  await subscribe(s, payer, 'AUDIO1');
  const sub = (await subscribe(s, company, 'AUDIO1')).json();
  expect(sub.status).toBe('ACTIVE');
  return { company, sub };
}

describe('plan changes and cancels', () => {
  it('prorates an upgrade to the cent, half up, by the days left', () => {
    const start = Date.UTC(2026, 0, 1);
    const end = Date.UTC(2026, 0, 31);
    expect(proratedCents(1000, start + 14 * DAY, start, end)).toBe(533); // 16 of 30 days: 533.33
    expect(proratedCents(1000, start + 13.5 * DAY, start, end)).toBe(567); // a started day counts: 17/30 = 566.67
    expect(proratedCents(1000, start + 27 * DAY, start, end)).toBe(100); // 3/30
    expect(proratedCents(1001, start + 15 * DAY, start, end)).toBe(501); // 500.5 rounds half up
    expect(proratedCents(1000, end, start, end)).toBe(0);
  });

  it('an upgrade is charged now for the days left; a downgrade waits for the period end', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const trialUser = (await subscribe(s, customer, 'AUDIO1')).json();
    // During a trial an upgrade costs nothing.
    const upgradedTrial = await call(s, customer, 'PUT', `/subscription/${trialUser.id}/plan`, { planId: s.plans.AUDIOMAX });
    expect(upgradedTrial.json()).toMatchObject({ status: 'TRIAL', plan: { code: 'AUDIOMAX' } });
    expect(await chargesOf(s, trialUser.id)).toEqual([]);
    // Other family: refused.
    expect((await call(s, customer, 'PUT', `/subscription/${trialUser.id}/plan`, { planId: s.plans.SHELF5 })).statusCode).toBe(422);

    const { company, sub } = await paidSubscription();
    // Midway: 14 days of a 30-day period gone, 16 days (less an hour) left.
    const now = Date.now();
    await s.t.database.db
      .updateTable('subscription')
      .set({ period_start: now - 14 * DAY, period_end: now + 16 * DAY - 3_600_000 })
      .where('id', '=', sub.id)
      .execute();
    const row = await subscriptionRow(s, sub.id);
    const upgrade = await call(s, company, 'PUT', `/subscription/${sub.id}/plan`, { planId: s.plans.AUDIOMAX });
    expect(upgrade.statusCode, upgrade.body).toBe(200);
    expect(upgrade.json().plan.code).toBe('AUDIOMAX');
    const charges = await chargesOf(s, sub.id);
    const expected = 533; // 10.00 a month more for 16 of 30 days: 533.33 -> 5.33
    expect(charges.map((c) => [c.purpose, c.state, c.amount_cents])).toEqual([
      ['PERIOD', 'settled', 999],
      ['UPGRADE', 'settled', expected],
    ]);
    // Downgrade: no charge, takes effect at the period end, at the cheaper price.
    const down = await call(s, company, 'PUT', `/subscription/${sub.id}/plan`, { planId: s.plans.AUDIO1 });
    expect(down.json()).toMatchObject({ plan: { code: 'AUDIOMAX' }, nextPlanId: s.plans.AUDIO1 });
    await bill(s, Number(row.period_end) + 1000);
    const renewed = (await call(s, company, 'GET', '/subscription')).json()[0];
    expect(renewed).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIO1' }, nextPlanId: null });
    expect((await chargesOf(s, sub.id)).at(-1)).toMatchObject({ purpose: 'PERIOD', period_number: 2, amount_cents: 999, state: 'settled' });
  });

  it('an upgrade sent twice at once is charged once: the second waits for the first and is told a payment is pending', async () => {
    const { company, sub } = await paidSubscription();
    const now = Date.now();
    await s.t.database.db
      .updateTable('subscription')
      .set({ period_start: now - 14 * DAY, period_end: now + 16 * DAY })
      .where('id', '=', sub.id)
      .execute();
    const upgrade = () => call(s, company, 'PUT', `/subscription/${sub.id}/plan`, { planId: s.plans.AUDIOMAX });
    // The second is sent while the first's charge is with the gateway, its answer and callback held: sent
    // together, the first was once settled before the second began (a loaded CI run: 200 and 200).
    const charged = mitPayments(s, sub.id).length;
    let answerGateway!: () => void;
    s.everypay.answerLate(MIT_PATH, new Promise<void>((resolve) => (answerGateway = resolve)));
    s.everypay.holdCallbacks();
    const first = upgrade();
    await until('the first upgrade to reach the gateway', () => mitPayments(s, sub.id).length === charged + 1);
    // Before, the second claimed attempt 2 while the first waited for the gateway, and the card paid both.
    const second = await upgrade();
    answerGateway();
    await s.everypay.releaseCallbacks();
    expect([(await first).statusCode, second.statusCode]).toEqual([200, 409]);
    const upgrades = (await chargesOf(s, sub.id)).filter((charge) => charge.purpose === 'UPGRADE');
    expect(upgrades.map((charge) => charge.state)).toEqual(['settled']);
    expect(
      mitPayments(s, sub.id).filter((request) => /U\d+$/.test(String((request.body as { order_reference: string }).order_reference))),
    ).toHaveLength(1);
    // Once settled, asking again changes nothing and charges nothing.
    expect((await upgrade()).statusCode).toBe(200);
    expect((await chargesOf(s, sub.id)).filter((charge) => charge.purpose === 'UPGRADE')).toHaveLength(1);
  });

  it('a cancel keeps access until the period end, then ends without a charge, and mails once', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const sub = (await subscribe(s, customer, 'SHELF5')).json();
    const cancelled = await call(s, customer, 'DELETE', `/subscription/${sub.id}`);
    expect(cancelled.json()).toMatchObject({ status: 'ACTIVE', cancelAtPeriodEnd: true });
    expect((await call(s, customer, 'DELETE', `/subscription/${sub.id}`)).statusCode).toBe(200);
    expect(await mailJobs(s, sub.id)).toEqual(['purchased', 'cancelled']);
    const end = Date.parse(sub.currentPeriodEnd);
    await bill(s, end - 1000);
    expect((await subscriptionRow(s, sub.id)).status).toBe('ACTIVE');
    await bill(s, end + 1000);
    expect((await subscriptionRow(s, sub.id)).status).toBe('ENDED');
    expect((await chargesOf(s, sub.id)).length).toBe(1);
    expect((await call(s, customer, 'PUT', `/subscription/${sub.id}/plan`, { planId: s.plans.SHELF5 })).statusCode).toBe(409);
  });
});
