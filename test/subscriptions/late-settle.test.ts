import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionLateSettlesTotal } from '../../src/infra/metrics/process-metrics.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import type { Logger } from '../../src/infra/logger.js';
import { billDue } from '../../src/modules/subscriptions/index.js';
import { recipientsOf } from '../back-in-stock/helpers.js';
import { answers } from '../helpers/everypay-order.js';
import { until } from '../helpers/lock-waits.js';
import {
  declinedRenewal as declinedRenewalOf,
  refundJobs as refundJobsOf,
  settledForNothing as settledForNothingOf,
} from './late-settle-helpers.js';
import {
  DAY,
  bill,
  call,
  chargesOf,
  createCustomer,
  mailJobs,
  mitPayments,
  saveCard,
  subscribe,
  subscriptionRow,
  type MailingShop,
  REFUND_PATH,
  refundRequests,
  releaseHeldCallbacks,
  startMailingShop,
} from './helpers.js';

// A subscription charge the shop recorded failed (EveryPay answered the decline) that the card's
// bank approves after all: EveryPay settles the payment and calls back. The money is the
// customer's either way: while the subscription still retries that period (FAILED) the charge pays
// it, once; after the subscription was cancelled or ended, the billing run refunds it through
// EveryPay, once. The same callback again changes nothing.

let s: MailingShop;
beforeAll(async () => {
  // The races below hold EveryPay's first answer while the other party runs whole; under load that took longer than
  // the tests' usual 1.5 s client timeout, the held look-up failed as "EveryPay unavailable", and only one refund went.
  s = await startMailingShop({ EVERYPAY_TIMEOUT_MS: '15000' });
});
afterAll(() => s.close());
afterEach(() => releaseHeldCallbacks(s));

const refundsOf = (reference: string) => refundRequests(s, reference);

const lateSettles = async (outcome: string) =>
  (await subscriptionLateSettlesTotal.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;

const declinedRenewal = () => declinedRenewalOf(s);

/** The same callback again, twice: each answered 200. */
async function repeatCallback(reference: string) {
  const sent = [...(await s.everypay.notify(reference)), ...(await s.everypay.notify(reference))];
  expect(answers(sent)).toEqual([
    [200, { outcome: 'applied' }],
    [200, { outcome: 'applied' }],
  ]);
}

const chargeStates = async (id: number) => (await chargesOf(s, id)).map((charge) => [charge.period_number, charge.state]);

describe('a declined subscription charge that EveryPay settles later', () => {
  it('the subscription still retrying (FAILED): the charge pays the period, ACTIVE without a gap, once; no retry, no refund', async () => {
    const { customer, id, end, reference } = await declinedRenewal();
    const applied = await lateSettles('applied');
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    const row = await subscriptionRow(s, id);
    expect(row).toMatchObject({ status: 'ACTIVE', period_number: 2, period_start: end, failed_attempts: 0, next_attempt_at: null });
    expect(Number(row.period_end)).toBeGreaterThan(end + 27 * DAY);
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'settled'],
    ]);
    expect(await lateSettles('applied')).toBe(applied + 1);
    const listed = (await call(s, customer, 'GET', '/subscription')).json();
    expect(listed).toEqual([
      expect.objectContaining({ id, status: 'ACTIVE', currentPeriodStart: new Date(end).toISOString(), nextAttemptAt: null }),
    ]);
    // The same callback again: nothing moves, the period is not extended twice.
    await repeatCallback(reference);
    expect(await subscriptionRow(s, id)).toEqual(row);
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'settled'],
    ]);
    // When the retry would have been due, the run charges nothing and refunds nothing.
    const mits = mitPayments(s, id).length;
    const report = await bill(s, end + DAY + 1000);
    expect(mitPayments(s, id)).toHaveLength(mits);
    expect(report.refunded).toBe(0);
    expect(refundsOf(reference)).toEqual([]);
    expect(s.everypay.payment(reference)!.state).toBe('settled');
    expect(await subscriptionRow(s, id)).toEqual(row);
  });

  it('the subscription cancelled meanwhile (ENDED): the payment is marked, refunded once by the billing run, and the subscription stays ended', async () => {
    const { customer, id, end, reference } = await declinedRenewal();
    const cancelled = await call(s, customer, 'DELETE', `/subscription/${id}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ status: 'ENDED' });
    const ended = await subscriptionRow(s, id);
    const due = await lateSettles('refund_due');
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refund_due'],
    ]);
    expect(await subscriptionRow(s, id)).toEqual(ended);
    expect(await lateSettles('refund_due')).toBe(due + 1);
    await repeatCallback(reference);
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refund_due'],
    ]);
    expect(await lateSettles('refund_due')).toBe(due + 1);
    // The billing run refunds it whole through EveryPay; EveryPay's callback of the refund changes nothing more.
    const report = await bill(s, end + 2000);
    await s.everypay.callbacksIdle();
    expect(report).toMatchObject({ refunded: 1, refundsLeft: 0 });
    expect(refundsOf(reference)).toHaveLength(1);
    expect(s.everypay.payment(reference)!.state).toBe('refunded');
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refunded'],
    ]);
    // Again: no second refund, the subscription still ENDED, nothing charged.
    await repeatCallback(reference);
    const mits = mitPayments(s, id).length;
    expect(await bill(s, end + DAY + 1000)).toMatchObject({ refunded: 0, refundsLeft: 0 });
    expect(refundsOf(reference)).toHaveLength(1);
    expect(mitPayments(s, id)).toHaveLength(mits);
    expect(await subscriptionRow(s, id)).toEqual(ended);
    expect((await call(s, customer, 'GET', '/subscription')).json()).toEqual([expect.objectContaining({ id, status: 'ENDED' })]);
    // The customer, told the renewal failed, is mailed the refund once it was made: once, naming the plan and the amount.
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed', 'cancelled', 'paymentRefunded']);
    const user = await s.t.database.db
      .selectFrom('subscription')
      .innerJoin('app_user', 'app_user.id', 'subscription.user_id')
      .select('app_user.email')
      .where('subscription.id', '=', id)
      .executeTakeFirstOrThrow();
    const refunded = s.smtp.mails.filter(
      (mail) => recipientsOf(mail).includes(user.email.toLowerCase()) && /tagastatud/.test(mail.subject ?? ''),
    );
    expect(refunded.map((mail) => mail.subject)).toEqual(['Teie makse 7,50 € on tagastatud']);
    expect(refunded[0]!.text).toContain('Teie makse 7,50 € tellimuse Riiul 5 eest on kaardile tagastatud');
  });

  it('the first month declined (POST /subscription 409, ENDED): settled later, it is refunded, and the client may subscribe again', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'failed');
    const declined = await subscribe(s, customer, 'SHELF5');
    expect(declined.statusCode, declined.body).toBe(409);
    await s.everypay.callbacksIdle();
    const [sub] = (await call(s, customer, 'GET', '/subscription')).json();
    expect(sub).toMatchObject({ status: 'ENDED' });
    const reference = (await chargesOf(s, sub.id))[0]!.reference!;
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await chargeStates(sub.id)).toEqual([[1, 'refund_due']]);
    expect((await subscriptionRow(s, sub.id)).status).toBe('ENDED');
    expect(await bill(s, Date.now())).toMatchObject({ refunded: 1 });
    await s.everypay.callbacksIdle();
    expect(await chargeStates(sub.id)).toEqual([[1, 'refunded']]);
    expect(s.everypay.payment(reference)!.state).toBe('refunded');
    await repeatCallback(reference);
    expect(await chargeStates(sub.id)).toEqual([[1, 'refunded']]);
    expect(refundsOf(reference)).toHaveLength(1);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'settled');
    const again = await subscribe(s, customer, 'SHELF5');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ status: 'ACTIVE' });
  });
});

const refundJobs = (chargeId: number) => refundJobsOf(s, chargeId);
const settledForNothing = () => settledForNothingOf(s);

describe('the refund of a charge settled for nothing, queued with its mark', () => {
  it('the job refunds it without a billing run; a repeated callback queues nothing more, and the job again refunds nothing', async () => {
    const { id, reference, chargeId } = await settledForNothing();
    expect(await refundJobs(chargeId)).toHaveLength(1);
    await repeatCallback(reference);
    expect(await refundJobs(chargeId)).toHaveLength(1);
    expect(refundsOf(reference)).toEqual([]);
    await s.t.drainJobs();
    await s.everypay.callbacksIdle();
    expect(refundsOf(reference)).toHaveLength(1);
    expect(s.everypay.payment(reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refunded'],
    ]);
    const [job] = await refundJobs(chargeId);
    expect(job).toMatchObject({ status: 'done', result: 'refunded', attempts: 1 });
    // EveryPay's callbacks (the refund's, a repeat) queue nothing; the same job run again refunds nothing.
    await repeatCallback(reference);
    expect(await refundJobs(chargeId)).toHaveLength(1);
    expect(await retryJob(s.t.database.db, job!.id)).toBe(true);
    await s.t.drainJobs();
    expect(await refundJobs(chargeId)).toEqual([expect.objectContaining({ status: 'done', result: 'skipped' })]);
    expect(refundsOf(reference)).toHaveLength(1);
    expect(await bill(s, Date.now())).toMatchObject({ refunded: 0, refundsLeft: 0 });
    expect(refundsOf(reference)).toHaveLength(1);
  });

  it('EveryPay down when the job runs: the job is tried again later, and refunds once then', async () => {
    const { id, reference, chargeId } = await settledForNothing();
    s.everypay.breakApi({ status: 503 }, 1, `/api/v4/payments/${reference}`);
    await s.t.drainJobs();
    expect(await refundJobs(chargeId)).toEqual([expect.objectContaining({ status: 'pending', attempts: 1 })]);
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refund_due'],
    ]);
    expect(await mailJobs(s, id)).not.toContain('paymentRefunded');
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(await refundJobs(chargeId)).toEqual([expect.objectContaining({ status: 'done', result: 'refunded', attempts: 2 })]);
    expect(refundsOf(reference)).toHaveLength(1);
    // The refund's mail: once, queued by the try that made it.
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refunded'],
    ]);
  });

  it("EveryPay refusing the shop's credentials for the refund (401): left refund_due with the refusal logged; the next run refunds once", async () => {
    const { id, reference, chargeId } = await settledForNothing();
    s.everypay.breakApi({ status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' }, 1, REFUND_PATH);
    const warnings: Array<{ chargeId?: number; err?: unknown }> = [];
    const log = {
      warn: (details: object) => void warnings.push(details),
      error: (details: object) => void warnings.push(details),
    } as unknown as Pick<Logger, 'warn' | 'error'>;
    await billDue(s.t.database.db, s.gateways, Date.now(), { cardTokens: s.cardTokens, log });
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refund_due'],
    ]);
    // The operator is told what to put right; before, the look-up after the 401 found the payment settled and said nothing.
    expect(warnings.filter((warning) => warning.chargeId === chargeId)).toEqual([
      expect.objectContaining({ err: expect.objectContaining({ name: 'GatewayRefusedError', status: 401 }) }),
    ]);
    expect(await bill(s, Date.now())).toMatchObject({ refundsLeft: 0 });
    expect(refundsOf(reference)).toHaveLength(2);
    expect(s.everypay.payment(reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
    expect(await chargeStates(id)).toEqual([
      [1, 'settled'],
      [2, 'refunded'],
    ]);
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
  });

  // Both look the payment up while it is still settled (EveryPay's answer to the first look-up is held
  // until the other has refunded and marked it), so both send the refund: EveryPay refuses the second
  // (its nonce is the first's), which then finds the payment refunded. One refund, nothing left.
  it.each(['the job', 'the billing run'] as const)(
    'the job and a billing run at once, %s looking the payment up first: one refund, the charge refunded, nothing left for later',
    async (first) => {
      const { id, reference, chargeId } = await settledForNothing();
      s.everypay.holdCallbacks();
      const statusPath = `/api/v4/payments/${reference}`;
      const lookUps = () => s.everypay.requests.filter((r) => r.method === 'GET' && r.path === statusPath).length;
      const before = lookUps();
      let answer!: () => void;
      s.everypay.answerLate(statusPath, new Promise<void>((resolve) => (answer = resolve)));
      const runJob = () => s.t.drainJobs();
      const runBilling = () => bill(s, Date.now());
      const held = first === 'the job' ? runJob() : runBilling();
      await until('the first look-up', () => lookUps() > before);
      const other = await (first === 'the job' ? runBilling() : runJob());
      expect(await chargeStates(id)).toEqual([
        [1, 'settled'],
        [2, 'refunded'],
      ]);
      answer();
      const late = await held;
      const report = (first === 'the job' ? other : late) as Awaited<ReturnType<typeof runBilling>>;
      expect(refundsOf(reference)).toHaveLength(2);
      expect(s.everypay.payment(reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
      expect(await chargeStates(id)).toEqual([
        [1, 'settled'],
        [2, 'refunded'],
      ]);
      expect(report.refundsLeft).toBe(0);
      const [job] = await refundJobs(chargeId);
      expect(job!.status).toBe('done');
      expect(report.refunded + (job!.result === 'refunded' ? 1 : 0)).toBe(1);
      await s.everypay.releaseCallbacks();
      await s.everypay.callbacksIdle();
      expect(await chargeStates(id)).toEqual([
        [1, 'settled'],
        [2, 'refunded'],
      ]);
      // Mailed by the one that marked it refunded.
      expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
    },
  );
});
