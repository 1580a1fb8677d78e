import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionLateSettlesTotal } from '../../src/infra/metrics/process-metrics.js';
import type { Logger } from '../../src/infra/logger.js';
import { billDue } from '../../src/modules/subscriptions/index.js';
import { jsonLogLines, runCli, runCliProcess } from '../helpers/cli.js';
import { until, withTableHeld } from '../helpers/lock-waits.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
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
// the refusal kept and logged, and nothing sends it again; the operator lists it, records it refunded
// by hand, or sends it back to be refunded. A refusal of the shop's credentials (401) or an outage
// (5xx) still leaves it refund_due, for the next try.

let s: MailingShop;
let env: Record<string, string>;
beforeAll(async () => {
  // A database file on SQLite, which the commands open beside the shop.
  s = await startMailingShop({}, { sqliteFile: true });
  env = { DATABASE_URL: s.t.config.databaseUrl, ...everypayEnv(s.everypay), TEST_GATEWAY: 'off' };
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
const subscription = (...args: string[]) => runCli(['subscription', ...args], env);

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

/** A charge settled for nothing whose refund EveryPay refused as asked, through a billing run: refund_refused. */
async function refusedRefund() {
  const charge = await settledForNothing(s);
  refuseRefunds();
  const { report } = await loggedBill(Date.now());
  expect(report).toMatchObject({ refunded: 0, refundsRefused: 1, refundsLeft: 0 });
  expect((await chargeOf(charge.chargeId)).state).toBe('refund_refused');
  return charge;
}

const listedRefused = async () => {
  const listed = await subscription('charges', '--refund-refused');
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

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

  it('`subscription bill` on the command line logs the refusal at error level on stderr, naming the charge', async () => {
    const { chargeId } = await settledForNothing(s);
    refuseRefunds();
    const run = await subscription('bill');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ refundsRefused: 1 });
    expect(jsonLogLines(run.stderr).filter((line) => line.chargeId === chargeId)).toEqual([
      expect.objectContaining({ level: 50, msg: expect.stringContaining('refused the refund') }),
    ]);
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
    const sent = refundRequests(s, reference);
    expect(sent).toHaveLength(2);
    // Under the same key: the first request may have been made, and the gateway makes it once.
    const nonce = (request: (typeof sent)[number]) => (request.body as { nonce: string }).nonce;
    expect(nonce(sent[1]!)).toBe(nonce(sent[0]!));
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

// A charge settled for nothing whose payment EveryPay then shows as none it can refund (voided since,
// or unknown to it) was looked up by every run, for good: it is the operator's too.
describe('a refund_due charge whose payment EveryPay shows it cannot refund', () => {
  it('voided since it settled, or unknown to EveryPay: refund_refused with the reason, no refund sent, not looked up again', async () => {
    const voided = await settledForNothing(s);
    // The billing run that makes the second leaves the first's refund for later (EveryPay down for refunds).
    s.everypay.breakApi({ status: 503 }, Infinity, REFUND_PATH);
    const unknown = await settledForNothing(s);
    s.everypay.breakApi(null);
    s.everypay.holdCallbacks();
    await s.everypay.setState(voided.reference, 'voided');
    // EveryPay's own 404 for the second's look-up (its error object): it does not know the payment.
    s.everypay.breakApi(
      { status: 404, body: '{"error":{"code":4040,"message":"Payment not found"}}' },
      1,
      `/api/v4/payments/${unknown.reference}`,
    );
    const refundsAsked = () => refundRequests(s, voided.reference).length + refundRequests(s, unknown.reference).length;
    const askedBefore = refundsAsked();
    const { report, logged } = await loggedBill(Date.now());
    expect(report).toMatchObject({ refunded: 0, refundsRefused: 2, refundsLeft: 0 });
    expect(await chargeOf(voided.chargeId)).toMatchObject({
      state: 'refund_refused',
      refund_refusal: 'the gateway shows the payment voided: nothing to refund through it',
    });
    expect(await chargeOf(unknown.chargeId)).toMatchObject({
      state: 'refund_refused',
      refund_refusal: 'the gateway does not know the payment: nothing to refund through it',
    });
    expect(logged.filter((line) => line.level === 'error').map((line) => line.chargeId)).toEqual(
      expect.arrayContaining([voided.chargeId, unknown.chargeId]),
    );
    expect(refundsAsked()).toBe(askedBefore);
    // Listed for the operator; the next run asks EveryPay nothing about them.
    expect((await listedRefused()).map((line) => line.id)).toEqual(expect.arrayContaining([voided.chargeId, unknown.chargeId]));
    const asked = s.everypay.requests.length;
    expect((await loggedBill(Date.now())).report).toMatchObject({ refundsRefused: 0, refundsLeft: 0 });
    expect(s.everypay.requests.slice(asked).filter((request) => request.path.includes(voided.reference))).toEqual([]);
  });
});

describe("the operator's way out: subscription charges --refund-refused, mark-refunded, retry-refund", () => {
  it('lists the refused refunds, oldest first, with the refusal; not one still refund_due', async () => {
    const first = await refusedRefund();
    const second = await refusedRefund();
    s.everypay.breakApi(null);
    const due = await settledForNothing(s);
    const charge = await chargeOf(first.chargeId);
    const listed = await listedRefused();
    const ids = listed.map((line) => line.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.filter((listedId) => listedId === first.chargeId || listedId === second.chargeId)).toEqual([
      first.chargeId,
      second.chargeId,
    ]);
    expect(ids).not.toContain(due.chargeId);
    expect(listed.find((line) => line.id === first.chargeId)).toEqual({
      id: first.chargeId,
      subscriptionId: first.id,
      periodNumber: 2,
      purpose: 'PERIOD',
      amount: 7.5,
      refunded: 0,
      toRefund: 7.5,
      currency: 'EUR',
      gateway: 'everypay',
      orderReference: charge.order_reference,
      reference: first.reference,
      refusal: 'everypay refused (422): refund: 4024 Payment can not be refunded',
      refusedAt: new Date(Number(charge.refund_refused_at)).toISOString(),
      createdAt: new Date(Number(charge.created_at)).toISOString(),
    });
  });

  it('mark-refunded records it refunded and queues the refund mail once; a second call is refused, changing nothing', async () => {
    const { id, reference, chargeId } = await refusedRefund();
    const marked = await subscription('mark-refunded', String(chargeId));
    expect(marked.code, marked.stderr).toBe(0);
    expect(JSON.parse(marked.stdout)).toMatchObject({ id: chargeId, subscriptionId: id, state: 'refunded' });
    expect((await chargeOf(chargeId)).state).toBe('refunded');
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefundedByHand')).toHaveLength(1);
    expect((await listedRefused()).map((line) => line.id)).not.toContain(chargeId);
    const again = await subscription('mark-refunded', String(chargeId));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`charge ${chargeId} (SUB${id}-2P1) is refunded, not refund_refused: nothing changed`);
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefundedByHand')).toHaveLength(1);
    // Nothing was asked of EveryPay: the refund was made outside it.
    expect(refundRequests(s, reference)).toHaveLength(1);
  });

  it('retry-refund sends it back to refund_due, its refund queued; the next run refunds it through EveryPay', async () => {
    const { id, reference, chargeId } = await refusedRefund();
    s.everypay.breakApi(null);
    const jobs = (await refundJobs(s, chargeId)).length;
    const retried = await subscription('retry-refund', String(chargeId));
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ id: chargeId, state: 'refund_due' });
    expect((await chargeOf(chargeId)).state).toBe('refund_due');
    const queued = await refundJobs(s, chargeId);
    expect(queued).toHaveLength(jobs + 1);
    expect(queued.at(-1)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await bill(s, Date.now())).toMatchObject({ refunded: 1, refundsRefused: 0, refundsLeft: 0 });
    const sent = refundRequests(s, reference);
    expect(sent).toHaveLength(2);
    // Under a new key: the gateway refused the first one's request.
    const nonce = (request: (typeof sent)[number]) => (request.body as { nonce: string }).nonce;
    expect(nonce(sent[1]!)).not.toBe(nonce(sent[0]!));
    expect((await chargeOf(chargeId)).state).toBe('refunded');
    const again = await subscription('retry-refund', String(chargeId));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is refunded, not refund_refused: nothing changed');
    await s.t.drainJobs();
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
  });

  it('refuses, changing nothing: an unknown id, a charge in another state, a malformed command line', async () => {
    const refused = await refusedRefund();
    s.everypay.breakApi(null);
    const due = await settledForNothing(s);
    const before = [await chargeOf(refused.chargeId), await chargeOf(due.chargeId), await mailJobs(s, refused.id)];
    const expectRefused = async (args: string[], code: number, message: string) => {
      const result = await subscription(...args);
      expect(result.code, result.stdout).toBe(code);
      expect(result.stderr).toContain(message);
    };
    for (const action of ['mark-refunded', 'retry-refund']) {
      await expectRefused([action, '999999999'], 1, 'no subscription charge has the id 999999999; nothing changed');
      await expectRefused([action, String(due.chargeId)], 1, `charge ${due.chargeId} (SUB${due.id}-2P1) is refund_due, not refund_refused`);
      await expectRefused([action], 2, `subscription ${action} <chargeId>`);
      await expectRefused([action, '12x'], 2, '"12x" is not a charge id');
      await expectRefused([action, '0'], 2, '"0" is not a charge id');
      await expectRefused([action, String(refused.chargeId), 'extra'], 2, `subscription ${action} <chargeId>`);
    }
    await expectRefused(['charges', '--refund-refused', 'extra'], 2, '--refund-refused (refunds the gateway refused for good)');
    await expectRefused(['charges', 'constructor'], 2, '--refund-refused (refunds the gateway refused for good)');
    expect([await chargeOf(refused.chargeId), await chargeOf(due.chargeId), await mailJobs(s, refused.id)]).toEqual(before);
  });

  it('two mark-refunded at once: one records it refunded and queues the mail, the other is refused', async () => {
    const { id, chargeId } = await refusedRefund();
    // Two processes, as two operators run them (in one process a SQLite connection waiting for the write lock would
    // hold up the other's commit). On PostgreSQL both have read the charge refund_refused before either moves it.
    const mark = () => runCliProcess(['subscription', 'mark-refunded', String(chargeId)], env);
    const results = await withTableHeld(s.t.database.db, 'subscription_charge', () => Promise.all([mark(), mark()]));
    expect(results.map((result) => result.code).sort()).toEqual([0, 1]);
    expect(results.find((result) => result.code === 1)!.stderr).toContain('is refunded, not refund_refused: nothing changed');
    expect((await chargeOf(chargeId)).state).toBe('refunded');
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefundedByHand')).toHaveLength(1);
  });
});
