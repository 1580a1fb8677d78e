import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionLateSettlesTotal } from '../../src/infra/metrics/process-metrics.js';
import type { Logger } from '../../src/infra/logger.js';
import { billDue } from '../../src/modules/subscriptions/index.js';
import { until } from '../helpers/lock-waits.js';
import {
  bill,
  chargesOf,
  mailJobs,
  REFUND_PATH,
  refundRequests,
  releaseHeldCallbacks,
  startMailingShop,
  type MailingShop,
} from './helpers.js';
import { refundJobs, settledForNothing } from './late-settle-helpers.js';

// A subscription charge settled for nothing (refund_due) whose refund EveryPay refuses as asked (its
// 422: the payment can no longer be refunded), the payment still settled when looked up again, was
// sent again by its job and every billing run, for good. It now becomes refund_refused, once, with
// the refusal kept and logged, and nothing sends it again. A refusal of the shop's credentials (401) or an outage
// (5xx) still leaves it refund_due, for the next try.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(async () => {
  s.everypay.breakApi(null);
  await releaseHeldCallbacks(s);
});

const REFUSAL = '{"error":{"code":4024,"message":"Payment can not be refunded"}}';
/** EveryPay refuses every refund (422) until afterEach repairs it. */
const refuseRefunds = () => s.everypay.breakApi({ status: 422, body: REFUSAL }, Infinity, REFUND_PATH);

const chargeOf = async (chargeId: number) =>
  s.t.database.db.selectFrom('subscription_charge').selectAll().where('id', '=', chargeId).executeTakeFirstOrThrow();
const lateSettles = async (outcome: string) =>
  (await subscriptionLateSettlesTotal.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;

/** A billing run whose warnings and errors are kept. */
async function loggedBill(now: number) {
  const logged: Array<{ level: string; chargeId?: number; err?: unknown }> = [];
  const log = {
    warn: (details: object) => void logged.push({ level: 'warn', ...details }),
    error: (details: object) => void logged.push({ level: 'error', ...details }),
  } as unknown as Pick<Logger, 'warn' | 'error'>;
  const report = await billDue(s.t.database.db, s.gateways, now, { cardTokens: s.cardTokens, log });
  return { report, logged };
}

describe('a refund EveryPay refuses as asked (422), the payment still settled', () => {
  it('the billing run makes it refund_refused once, the refusal kept, logged at error level and counted; no job or run sends it again', async () => {
    const { id, reference, chargeId } = await settledForNothing(s);
    refuseRefunds();
    const [refused, failed] = [await lateSettles('refund_refused'), await lateSettles('refund_failed')];
    const at = Date.now();
    const { report, logged } = await loggedBill(at);
    expect(report).toMatchObject({ refunded: 0, refundsRefused: 1, refundsLeft: 0 });
    expect(refundRequests(s, reference)).toHaveLength(1);
    expect(s.everypay.payment(reference)!.state).toBe('settled');
    expect(await chargeOf(chargeId)).toMatchObject({
      state: 'refund_refused',
      refund_refusal: 'everypay refused (422): refund: 4024 Payment can not be refunded',
      refund_refused_at: at,
    });
    expect(logged.filter((line) => line.chargeId === chargeId)).toEqual([
      expect.objectContaining({ level: 'error', err: expect.objectContaining({ name: 'GatewayRefusedError', status: 422 }) }),
    ]);
    expect([await lateSettles('refund_refused'), await lateSettles('refund_failed')]).toEqual([refused + 1, failed]);
    // Its job, and the runs after, leave it alone: the gateway is not asked to refund it again.
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(await refundJobs(s, chargeId)).toEqual([expect.objectContaining({ status: 'done', result: 'skipped' })]);
    expect(await loggedBill(Date.now())).toMatchObject({ report: { refunded: 0, refundsRefused: 0, refundsLeft: 0 }, logged: [] });
    expect(refundRequests(s, reference)).toHaveLength(1);
    expect((await chargeOf(chargeId)).state).toBe('refund_refused');
    expect(await mailJobs(s, id)).not.toContain('paymentRefunded');
    expect(await lateSettles('refund_refused')).toBe(refused + 1);
  });

  it('its job makes it refund_refused and ends in one try (not tried again); the next run does not send it', async () => {
    const { reference, chargeId } = await settledForNothing(s);
    refuseRefunds();
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(await refundJobs(s, chargeId)).toEqual([expect.objectContaining({ status: 'done', result: 'refused', attempts: 1 })]);
    expect((await chargeOf(chargeId)).state).toBe('refund_refused');
    expect(await bill(s, Date.now())).toMatchObject({ refundsRefused: 0, refundsLeft: 0 });
    expect(refundRequests(s, reference)).toHaveLength(1);
  });

  it.each([
    ["the shop's credentials refused (401)", { status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' }],
    ['EveryPay failing (500)', { status: 500 }],
  ])('%s: left refund_due, tried again by the next run, which refunds it', async (_, breakage) => {
    const { id, reference, chargeId } = await settledForNothing(s);
    s.everypay.breakApi(breakage, Infinity, REFUND_PATH);
    const { report, logged } = await loggedBill(Date.now());
    expect(report).toMatchObject({ refunded: 0, refundsRefused: 0, refundsLeft: 1 });
    expect(await chargeOf(chargeId)).toMatchObject({ state: 'refund_due', refund_refusal: null, refund_refused_at: null });
    expect(logged.filter((line) => line.chargeId === chargeId).map((line) => line.level)).toEqual(['warn']);
    s.everypay.breakApi(null);
    expect(await bill(s, Date.now())).toMatchObject({ refunded: 1, refundsRefused: 0, refundsLeft: 0 });
    expect(refundRequests(s, reference)).toHaveLength(2);
    expect((await chargesOf(s, id)).at(-1)!.state).toBe('refunded');
  });

  it('a refunder that finds it refunded after another recorded it refused (its refund went through) marks it refunded, mailed once', async () => {
    const { id, reference, chargeId } = await settledForNothing(s);
    const statusPath = `/api/v4/payments/${reference}`;
    const lookUps = () => s.everypay.requests.filter((r) => r.method === 'GET' && r.path === statusPath).length;
    const before = lookUps();
    let answer!: () => void;
    s.everypay.answerLate(statusPath, new Promise<void>((resolve) => (answer = resolve)));
    // The job looks the payment up first and is held; the billing run's refund is refused meanwhile.
    const job = s.t.drainJobs();
    await until('the job to look the payment up', () => lookUps() > before);
    s.everypay.breakApi({ status: 422, body: REFUSAL }, 1, REFUND_PATH);
    expect(await bill(s, Date.now())).toMatchObject({ refundsRefused: 1 });
    expect((await chargeOf(chargeId)).state).toBe('refund_refused');
    answer();
    await job;
    expect(refundRequests(s, reference)).toHaveLength(2);
    expect(s.everypay.payment(reference)!.state).toBe('refunded');
    expect(await refundJobs(s, chargeId)).toEqual([expect.objectContaining({ status: 'done', result: 'refunded' })]);
    expect((await chargeOf(chargeId)).state).toBe('refunded');
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
  });
});
