import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateways, PaymentGateway } from '../../src/modules/payments/index.js';
import { billDue, STALE_CHARGE_MS } from '../../src/modules/subscriptions/billing.service.js';
import { scheduleSubscriptionBilling } from '../../src/modules/subscriptions/index.js';
import type { Logger } from '../../src/infra/logger.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  activeShelfSubscriber,
  DAY,
  bill,
  call,
  chargesOf,
  mailJobs,
  MIT_PATH,
  mitPayments,
  startSubscriptionShop,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
// A test that fails while callbacks are held must not leave the next tests without them.
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  s.everypay.breakApi(null);
});

const activeSubscriber = () => activeShelfSubscriber(s);

describe('billing', () => {
  it('renews a due subscription through a merchant-initiated charge and extends the period without a gap', async () => {
    const { id, end } = await activeSubscriber();
    await bill(s, end - 1000);
    expect((await subscriptionRow(s, id)).period_number).toBe(1);
    await bill(s, end + 1000);
    const row = await subscriptionRow(s, id);
    expect(row).toMatchObject({ status: 'ACTIVE', period_number: 2, period_start: end });
    expect(Number(row.period_end)).toBeGreaterThanOrEqual(end + 28 * DAY);
    const mits = mitPayments(s, id);
    expect(mits.map((r) => (r.body as Record<string, unknown>).token_agreement)).toEqual(['unscheduled', 'unscheduled']);
    await bill(s, end + 2000);
    expect(mitPayments(s, id)).toHaveLength(2);
  });

  it('a failed renewal is FAILED, mailed, retried 3 times over 7 days, then lapses', async () => {
    const { id, end, token } = await activeSubscriber();
    s.everypay.setCardOutcome(token, 'failed');
    await bill(s, end + 1000);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: end + DAY });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed']);
    await bill(s, end + DAY - 1000);
    expect(mitPayments(s, id)).toHaveLength(2);
    await bill(s, end + DAY);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 2, next_attempt_at: end + 3 * DAY });
    await bill(s, end + 3 * DAY);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 3, next_attempt_at: end + 7 * DAY });
    await bill(s, end + 7 * DAY);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'LAPSED', failed_attempts: 4, live_key: null });
    expect(mitPayments(s, id)).toHaveLength(5); // the first month, the renewal and its 3 retries
    await bill(s, end + 30 * DAY);
    expect(mitPayments(s, id)).toHaveLength(5);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed', 'lapsed']);
  });

  it('a retry that succeeds makes it ACTIVE again, the period starting where the last one ended', async () => {
    const { id, end, token } = await activeSubscriber();
    s.everypay.setCardOutcome(token, 'failed');
    await bill(s, end + 1000);
    s.everypay.setCardOutcome(token, 'settled');
    await bill(s, end + DAY);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2, period_start: end, failed_attempts: 0 });
    expect((await chargesOf(s, id)).map((c) => [c.period_number, c.attempt, c.state])).toEqual([
      [1, 1, 'settled'],
      [2, 1, 'failed'],
      [2, 2, 'settled'],
    ]);
  });

  it('two billing runs at once charge every due subscription exactly once', async () => {
    const subs = [];
    for (let i = 0; i < 5; i += 1) subs.push(await activeSubscriber());
    const at = Math.max(...subs.map((sub) => sub.end)) + 1000;
    const reports = await Promise.all([bill(s, at), bill(s, at), bill(s, at)]);
    expect(reports.reduce((sum, report) => sum + report.charged, 0)).toBe(subs.length);
    for (const sub of subs) {
      expect(mitPayments(s, sub.id)).toHaveLength(2);
      expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    }
  });

  it('a lost answer leaves the charge pending; the callback settles it and no run charges it again', async () => {
    const { id, end } = await activeSubscriber();
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    const report = await bill(s, end + 1000);
    expect(report.pending).toBe(1);
    await s.everypay.callbacksIdle();
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    await bill(s, end + STALE_CHARGE_MS + 2000);
    expect(mitPayments(s, id)).toHaveLength(2);
    expect(s.everypay.paymentsFor(`SUB${id}-2P1`)).toHaveLength(1);
  });

  it('a run killed halfway (answer lost, no callback yet): later runs reconcile, never charge twice, miss nothing', async () => {
    const { id, end } = await activeSubscriber();
    s.everypay.holdCallbacks();
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    await bill(s, end + 1000);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ period_number: 2, state: 'pending', reference: null });
    // A second worker right away: the pending row is another run's, nothing is charged.
    await bill(s, end + 2000);
    // Later, the stale row is reconciled: EveryPay refuses the repeated request (its nonce was used).
    await bill(s, end + STALE_CHARGE_MS + 3000);
    expect(s.everypay.paymentsFor(`SUB${id}-2P1`)).toHaveLength(1);
    expect((await subscriptionRow(s, id)).period_number).toBe(1);
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'settled' });
    expect(s.everypay.paymentsFor(`SUB${id}-2P1`)).toHaveLength(1);
  });

  it('a run that died before its request reached EveryPay: the reconcile sends it once', async () => {
    const { id, end } = await activeSubscriber();
    s.everypay.breakApi({ status: 503 }, 1, MIT_PATH);
    await bill(s, end + 1000);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'pending' });
    expect(s.everypay.paymentsFor(`SUB${id}-2P1`)).toHaveLength(0);
    await bill(s, end + STALE_CHARGE_MS + 2000);
    expect(s.everypay.paymentsFor(`SUB${id}-2P1`)).toHaveLength(1);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
  });

  it('a run with a pool charges several subscriptions at once, and two pooled runs beside each other still charge each period once', async () => {
    // The gateway as a pooled run sees it: how many charges are at EveryPay at the same time.
    let inFlight = 0;
    let most = 0;
    // The first charge waits (up to 5 s) for a second to start: on a loaded machine the lanes' database
    // work can take so much longer than a charge that they would otherwise rarely meet at the gateway.
    // A run that charges one at a time still never gets a second in, so `most` stays 1 and the test fails.
    let overlapped = false;
    let onOverlap!: () => void;
    const overlap = new Promise<void>((resolve) => (onOverlap = resolve));
    const everypay = s.gateways.everypay!;
    const counted: Gateways = {
      ...s.gateways,
      everypay: Object.assign(Object.create(everypay) as PaymentGateway, {
        async chargeSavedCard(input: Parameters<PaymentGateway['chargeSavedCard']>[0]) {
          inFlight += 1;
          most = Math.max(most, inFlight);
          if (inFlight >= 2 && !overlapped) {
            overlapped = true;
            onOverlap();
          }
          if (!overlapped) await Promise.race([overlap, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
          try {
            return await everypay.chargeSavedCard(input);
          } finally {
            inFlight -= 1;
          }
        },
      }),
    };
    const first = [];
    for (let i = 0; i < 8; i += 1) first.push(await activeSubscriber());
    const report = await billDue(s.t.database.db, counted, Math.max(...first.map((sub) => sub.end)) + 1000, {
      cardTokens: s.cardTokens,
      concurrency: 3,
    });
    expect(report).toMatchObject({ charged: 8, failed: 0, pending: 0 });
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
    for (const sub of first) expect(mitPayments(s, sub.id)).toHaveLength(2);

    // Two pooled runs at once, with a declined card and an answer lost on the way back.
    const second = [];
    for (let i = 0; i < 6; i += 1) second.push(await activeSubscriber());
    s.everypay.setCardOutcome(second[0]!.token, 'failed');
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    const at = Math.max(...second.map((sub) => sub.end)) + 1000;
    const reports = await Promise.all([
      billDue(s.t.database.db, s.gateways, at, { cardTokens: s.cardTokens, concurrency: 4 }),
      billDue(s.t.database.db, s.gateways, at, { cardTokens: s.cardTokens, concurrency: 2 }),
    ]);
    const total = (key: 'charged' | 'failed' | 'pending') => reports.reduce((sum, r) => sum + r[key], 0);
    expect(total('charged') + total('failed') + total('pending')).toBe(second.length);
    expect(total('pending')).toBe(1);
    await s.everypay.callbacksIdle();
    await billDue(s.t.database.db, s.gateways, at + STALE_CHARGE_MS + 1000, { cardTokens: s.cardTokens, concurrency: 4 });
    for (const sub of second) {
      expect(mitPayments(s, sub.id)).toHaveLength(2);
      expect(s.everypay.paymentsFor(`SUB${sub.id}-2P1`)).toHaveLength(1);
    }
    expect(await subscriptionRow(s, second[0]!.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1 });
    for (const sub of second.slice(1)) expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
  });
});

// A charge whose answer never came stays pending (stuck-charges.test.ts) for hours or days: the
// customer who tries to cancel or change plan meanwhile is told it awaits the provider's confirmation
// and to contact customer service if it lasts, not to try again in a minute.
describe('changing a subscription whose charge has waited past its answer', () => {
  it('is a 409 that says so, with an hour to wait; a charge just sent is a minute', async () => {
    const { customer, id, end, token } = await activeSubscriber();
    s.everypay.setCardOutcome(token, 'settled', { processing: true });
    s.everypay.holdCallbacks();
    await bill(s, end + 1000);
    const [charge] = (await chargesOf(s, id)).filter((row) => row.state === 'pending');
    const at = async (updatedAt: number) => {
      await s.t.database.db.updateTable('subscription_charge').set({ updated_at: updatedAt }).where('id', '=', charge!.id).execute();
      const refused = [
        await call(s, customer, 'DELETE', `/subscription/${id}`),
        await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: 1 }),
      ];
      for (const answer of refused) expectErrorBody(answer, 409, 'Conflict');
      return refused.map((answer) => [answer.headers['retry-after'], (answer.json() as { message: string }).message]);
    };
    const fresh = await at(Date.now());
    const waited = await at(Date.now() - 11 * 60_000);
    expect(fresh.map(([retry]) => retry)).toEqual(['60', '60']);
    expect(waited.map(([retry]) => retry)).toEqual(['3600', '3600']);
    expect(waited[0]![1]).not.toBe(fresh[0]![1]);
    expect(waited[0]![1]).toBe(waited[1]![1]);
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();
  });
});

// A charge's outcome moves its subscription (settled: the next period). A cancellation applied while it
// waited for the gateway made that outcome land on an ended subscription: a FAILED one, ended at once,
// came back ACTIVE when its retry settled, without its family's slot and renewing every month.
describe('cancelling while a charge waits for the gateway', () => {
  it.each(['FAILED', 'ACTIVE'] as const)(
    '%s, its renewal pending: 409 and nothing changes; once it settled, the cancellation ends it at the period end with no more charges',
    async (status) => {
      const { customer, id, end, token } = await activeSubscriber();
      let at = end + 1000;
      if (status === 'FAILED') {
        s.everypay.setCardOutcome(token, 'failed');
        await bill(s, at);
        at = end + DAY;
      }
      expect((await subscriptionRow(s, id)).status).toBe(status);
      // EveryPay answers the renewal (or its retry) while the bank decides, and tells the settle later.
      s.everypay.setCardOutcome(token, 'settled', { processing: true });
      s.everypay.holdCallbacks();
      await bill(s, at);
      expect((await chargesOf(s, id)).at(-1)).toMatchObject({ period_number: 2, state: 'pending' });
      const before = await subscriptionRow(s, id);
      const mails = await mailJobs(s, id);
      const refused = await call(s, customer, 'DELETE', `/subscription/${id}`);
      expectErrorBody(refused, 409, 'Conflict');
      expect(refused.headers['retry-after']).toBe('60');
      expect(await subscriptionRow(s, id)).toEqual(before);
      expect(await mailJobs(s, id)).toEqual(mails);
      await s.everypay.releaseCallbacks();
      await s.everypay.callbacksIdle();
      const paid = await subscriptionRow(s, id);
      expect(paid).toMatchObject({ status: 'ACTIVE', period_number: 2, period_start: end, live_key: expect.any(String) });
      const cancelled = await call(s, customer, 'DELETE', `/subscription/${id}`);
      expect(cancelled.json()).toMatchObject({ status: 'ACTIVE', cancelAtPeriodEnd: true });
      expect(await mailJobs(s, id)).toEqual([...mails, 'cancelled']);
      const charged = mitPayments(s, id).length;
      await bill(s, Number(paid.period_end) + 1000);
      expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ENDED', live_key: null });
      expect(mitPayments(s, id)).toHaveLength(charged);
    },
  );
});

describe('the billing schedule', () => {
  // A worker restarted more often than the hourly interval (each release, a crash loop) must still
  // bill: the first run comes as the schedule starts, not an interval later.
  it('bills a due subscription as it starts, not an interval later', async () => {
    const { id, end } = await activeSubscriber();
    const log = { info: () => undefined, error: () => undefined, warn: () => undefined } as unknown as Logger;
    const schedule = scheduleSubscriptionBilling({ db: s.t.database.db, gateways: s.gateways, cardTokens: s.cardTokens, log }, 3_600_000, {
      now: () => end + 1000,
    });
    try {
      await expect.poll(async () => (await subscriptionRow(s, id)).period_number, { timeout: 5_000, interval: 50 }).toBe(2);
    } finally {
      await schedule.stop();
    }
  });
});
