import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import { until } from '../helpers/lock-waits.js';
import { answers } from '../helpers/everypay-order.js';
import { dyingProcess, type DyingProcess } from './dying-process.js';
import {
  DAY,
  MIT_PATH,
  billStalePending,
  call,
  chargesOf,
  halfWayAudio1,
  mailJobs,
  mailsReceivedBy,
  paidSubscriber,
  releaseHeldCallbacks,
  shownSubscription,
  startMailingShop,
  subscribe,
  type MailingShop,
} from './helpers.js';

// A charge the customer waits for (the first month at POST /subscription, an upgrade at PUT
// /subscription/{id}/plan) is committed before EveryPay is called. When the process dies right after
// EveryPay took the charge, the request tells the customer nothing: no 201, 200, 409 or "being
// processed". The charge is then decided by EveryPay's callback (or the billing run), the customer is
// charged once (a retry of the request is answered the subscription being processed), and the outcome is mailed: by
// the job queued with the charge, due once the request must have answered, or by the transaction that
// finishes the charge after that job. A request that did answer is mailed nothing more by that job.

let s: MailingShop;
let dying: DyingProcess;
beforeAll(async () => {
  // A call EveryPay never answers is given up after this (the test of a request that dies before EveryPay took its charge waits for it).
  s = await startMailingShop({ EVERYPAY_TIMEOUT_MS: '3000' }, { wrapDatabase: (database) => (dying = dyingProcess(database)).handle });
});
afterAll(() => s.close());
afterEach(async () => {
  dying.revive();
  await releaseHeldCallbacks(s);
});

const mits = () => s.everypay.requests.filter((request) => request.path === MIT_PATH).length;

/** Runs `request`, and kills the process once EveryPay carried out its charge and before the answer reaches it; then a new process. */
async function diesAfterTheCharge(request: () => Promise<{ statusCode: number }>) {
  const before = mits();
  let answer!: () => void;
  s.everypay.answerLate(MIT_PATH, new Promise<void>((resolve) => (answer = resolve)));
  const sent = request();
  await until('EveryPay to take the charge', () => mits() > before);
  dying.die();
  answer();
  // The killed request answers nothing; here it fails.
  expect((await sent).statusCode).toBe(500);
  dying.revive();
}

/** The deadline of the charge's request passes: the worker runs the jobs due by then. */
const deadlinePasses = () => s.t.jobs.worker.drain({ includeDelayed: true });

const subjects = (mails: ParsedMail[]) => mails.map((mail) => mail.subject);

describe('the process dies after EveryPay took a charge the customer waits for', () => {
  it('a first month, declined: charged once, a retry answered it pending, and the customer mailed that it did not start', async () => {
    const { customer, token } = await paidSubscriber(s);
    await s.t.drainJobs();
    const mailsBefore = s.smtp.mails.length;
    s.everypay.setCardOutcome(token, 'failed');
    s.everypay.holdCallbacks();
    await diesAfterTheCharge(() => subscribe(s, customer, 'AUDIO1'));
    const { id, status } = await shownSubscription(s, customer);
    expect(status).toBe('PENDING');
    expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['pending']);
    // The customer, told nothing, tries again: answered the subscription being processed (a repeat of the
    // request: subscribe-twice.test.ts), and not charged again.
    const again = await subscribe(s, customer, 'AUDIO1');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ id, status: 'PENDING' });
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ENDED' });
    await deadlinePasses();
    const mails = await mailsReceivedBy(s, customer, mailsBefore);
    expect(subjects(mails)).toEqual(['Teie tellimus Audio 1 ei alanud']);
    expect(await mailJobs(s, id)).toEqual(['startDeclined']);
    expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['failed']);
    expect(
      s.everypay.requests.filter(
        (r) => r.path === MIT_PATH && String((r.body as { order_reference: string }).order_reference).startsWith(`SUB${id}-`),
      ),
    ).toHaveLength(1);
  });

  it('an upgrade, settled after the deadline: the better plan, and the customer mailed it once', async () => {
    const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
    s.everypay.setCardOutcome(token, 'settled');
    s.everypay.holdCallbacks();
    await diesAfterTheCharge(() => call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX }));
    expect(await shownSubscription(s, customer)).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIO1' } });
    await deadlinePasses();
    expect(await mailJobs(s, id)).toEqual(['purchased']);
    const [callback] = await s.everypay.releaseCallbacks();
    expect(answers([callback!])).toEqual([[200, { outcome: 'applied' }]]);
    const reference = (await chargesOf(s, id)).at(-1)!.reference!;
    await s.everypay.notify(reference, { times: 2 });
    await deadlinePasses();
    expect(await shownSubscription(s, customer)).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIOMAX' } });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeConfirmed']);
  });

  it('an upgrade declined and then settled late before the deadline: mailed once that it is active after all', async () => {
    const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
    s.everypay.setCardOutcome(token, 'failed');
    s.everypay.holdCallbacks();
    await diesAfterTheCharge(() => call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX }));
    await s.everypay.releaseCallbacks();
    const reference = (await chargesOf(s, id)).at(-1)!.reference!;
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shownSubscription(s, customer)).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIOMAX' } });
    await deadlinePasses();
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeApplied']);
  });
});

describe('the process dies before EveryPay took the charge', () => {
  it("a first month: the billing run's look-up sends it again, charged once then, and the decline mailed", async () => {
    const { customer, token } = await paidSubscriber(s);
    s.everypay.setCardOutcome(token, 'failed');
    s.everypay.holdCallbacks();
    // EveryPay receives the charge but never carries it out nor answers; the process dies while it waits.
    s.everypay.breakApi('hang', 1, MIT_PATH);
    const before = mits();
    const sent = subscribe(s, customer, 'AUDIO1');
    await until('the charge to reach EveryPay', () => mits() > before);
    dying.die();
    expect((await sent).statusCode).toBe(500);
    dying.revive();
    const { id } = await shownSubscription(s, customer);
    const [charge] = await chargesOf(s, id);
    expect(charge).toMatchObject({ state: 'pending', reference: null });
    expect(s.everypay.paymentsFor(charge!.order_reference)).toEqual([]);
    await deadlinePasses();
    expect(await billStalePending(s, id)).toMatchObject({ reconciled: 1 });
    await s.everypay.releaseCallbacks();
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ENDED' });
    expect(s.everypay.paymentsFor(charge!.order_reference)).toHaveLength(1);
    await deadlinePasses();
    expect(await mailJobs(s, id)).toEqual(['startDeclined']);
  });
});

describe('a request that answered its charge', () => {
  const subscriber = async (outcome: 'settled' | 'failed', processing: boolean) => {
    const { customer, token } = await paidSubscriber(s);
    s.everypay.setCardOutcome(token, outcome, { processing });
    return customer;
  };
  const idOf = async (customer: TestCustomer) => (await shownSubscription(s, customer)).id;

  it.each([
    ['declined (409)', 'failed', 409, []],
    ['settled (201 ACTIVE)', 'settled', 201, ['purchased']],
  ] as const)('%s: the deadline mails nothing more', async (_, outcome, status, mails) => {
    const customer = await subscriber(outcome, false);
    expect((await subscribe(s, customer, 'AUDIO1')).statusCode).toBe(status);
    await s.everypay.callbacksIdle();
    await deadlinePasses();
    expect(await mailJobs(s, await idOf(customer))).toEqual(mails);
  });

  it('told PENDING, declined after the deadline: one mail, from the transaction that finished the charge', async () => {
    const customer = await subscriber('failed', true);
    s.everypay.holdCallbacks();
    const started = await subscribe(s, customer, 'AUDIO1');
    expect(started.json()).toMatchObject({ status: 'PENDING' });
    await deadlinePasses();
    await s.everypay.releaseCallbacks();
    await deadlinePasses();
    expect(await mailJobs(s, started.json().id)).toEqual(['startDeclined']);
  });
});

describe('a first month settled, its request dead, then charged back before the deadline', () => {
  // Taken back, the charge is refunded, which the deadline read as a first month that did not start.
  it('is not mailed that it did not start', async () => {
    const { customer, token } = await paidSubscriber(s);
    await s.t.drainJobs();
    s.everypay.setCardOutcome(token, 'settled');
    s.everypay.holdCallbacks();
    await diesAfterTheCharge(() => subscribe(s, customer, 'AUDIO1'));
    const { id } = await shownSubscription(s, customer);
    await s.everypay.releaseCallbacks();
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ACTIVE' });
    const [charge] = await chargesOf(s, id);
    await s.everypay.refund(charge!.reference!, charge!.amount_cents);
    await s.everypay.callbacksIdle();
    await deadlinePasses();
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ACTIVE' });
    expect(await mailJobs(s, id)).toEqual(['purchased']);
  });
});

describe('a charge whose request died, refunded at the gateway before it settled, and the deadline after', () => {
  // Refunded before it settled, the charge failed; the transaction that failed it mails nothing (the request was
  // still to answer), and the deadline, which knew only "failed", mailed "declined" of a card that was charged
  // and paid back. The refund is recorded on the charge (refunded_cents), and the deadline mails what happened.
  const paidThenRefunded = async (id: number) => {
    const [charge] = (await chargesOf(s, id)).filter((c) => c.state === 'pending');
    // The request died before EveryPay's answer named the payment: EveryPay knows it by the order reference.
    const [payment] = s.everypay.paymentsFor(charge!.order_reference);
    await s.everypay.refund(payment!.reference, charge!.amount_cents);
    expect(answers(await s.everypay.releaseCallbacks())).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: charge!.id, state: 'failed', refunded_cents: charge!.amount_cents });
  };

  it('a first month: mailed that its payment was refunded, not that the card was declined', async () => {
    const { customer, token } = await paidSubscriber(s);
    s.everypay.setCardOutcome(token, 'settled');
    s.everypay.holdCallbacks();
    await diesAfterTheCharge(() => subscribe(s, customer, 'AUDIO1'));
    const { id } = await shownSubscription(s, customer);
    await paidThenRefunded(id);
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ENDED' });
    await deadlinePasses();
    expect(await mailJobs(s, id)).toEqual(['startRefunded']);
  });

  it('an upgrade: mailed that its payment was refunded, the plan unchanged', async () => {
    const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
    s.everypay.setCardOutcome(token, 'settled');
    s.everypay.holdCallbacks();
    await diesAfterTheCharge(() => call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX }));
    await paidThenRefunded(id);
    expect(await shownSubscription(s, customer)).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIO1' } });
    await deadlinePasses();
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeRefunded']);
  });
});
