import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { expectErrorBody } from '../helpers/http.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import {
  activeShelfSubscriber,
  bill,
  call,
  callbackUrlOf,
  chargesOf,
  DAY,
  mailJobs,
  MIT_PATH,
  startSubscriptionShop,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// The operator's way out for a renewal EveryPay took whose callback never came (the billing run cannot
// settle it: EveryPay is not asked by order reference and refuses the same request again):
// `subscription charges --pending` lists it, `subscription settle` applies what the merchant portal
// shows, as the gateway's answer would be. Run as the operator runs them (runCli), on the shop's database.

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let s: SubscriptionShop;
let env: Record<string, string>;
beforeAll(async () => {
  // A database file on SQLite, which the command opens beside the shop.
  s = await startSubscriptionShop({ METRICS_TOKEN }, { sqliteFile: true });
  env = { DATABASE_URL: s.t.config.databaseUrl, ...everypayEnv(s.everypay), TEST_GATEWAY: 'off' };
});
afterAll(async () => s.close());
afterEach(() => {
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  s.everypay.breakApi(null);
});

const subscription = (...args: string[]) => runCli(['subscription', ...args], env);

/** A renewal EveryPay settled a quarter of an hour ago whose answer and callback were lost: pending, and stale. */
async function stuckRenewal() {
  const subscriber = await activeShelfSubscriber(s);
  const due = Date.now() - 15 * 60_000;
  await s.t.database.db.updateTable('subscription').set({ period_end: due }).where('id', '=', subscriber.id).execute();
  s.everypay.setCallbackUrl(null);
  s.everypay.breakApi('lost-answer', 1, MIT_PATH);
  expect(await bill(s, due)).toMatchObject({ pending: 1 });
  s.everypay.breakApi(null);
  const orderReference = `SUB${subscriber.id}-2P1`;
  const payment = s.everypay.paymentsFor(orderReference)[0]!;
  expect(payment.state).toBe('settled');
  return { ...subscriber, due, orderReference, paymentReference: payment.reference };
}

const pendingListed = async () => {
  const listed = await subscription('charges', '--pending');
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

describe('subscription charges --pending', () => {
  it('lists the stale pending charges with what the merchant portal finds them by; not a fresh one', async () => {
    const stuck = await stuckRenewal();
    const fresh = await activeShelfSubscriber(s);
    await s.t.database.db.updateTable('subscription').set({ period_end: Date.now() }).where('id', '=', fresh.id).execute();
    // This run sends the stuck charge again first (EveryPay unreachable for both: each stays pending).
    s.everypay.breakApi({ status: 503 }, 2, MIT_PATH);
    const checked = Date.now();
    expect(await bill(s, checked)).toMatchObject({ pending: 1 });
    const listed = await pendingListed();
    expect(listed.map((line) => line.orderReference)).toContain(stuck.orderReference);
    expect(listed.map((line) => line.orderReference)).not.toContain(`SUB${fresh.id}-2P1`);
    expect(listed.find((line) => line.orderReference === stuck.orderReference)).toEqual({
      subscriptionId: stuck.id,
      periodNumber: 2,
      purpose: 'PERIOD',
      attempt: 1,
      amount: 7.5,
      currency: 'EUR',
      gateway: 'everypay',
      orderReference: stuck.orderReference,
      reference: null,
      createdAt: new Date(stuck.due).toISOString(),
      checkedAt: new Date(checked).toISOString(),
      mismatch: null,
    });
    expect((await subscription('charges')).code).toBe(2);
  });
});

describe('charges stuck for over a day', () => {
  it('are counted by /metrics until settled', async () => {
    const stuck = async () => sample(await scrape(s.t, METRICS_TOKEN), 'storefront_subscription_charges_stuck');
    const before = (await stuck())!;
    const charge = await stuckRenewal();
    expect(await stuck()).toBe(before);
    await s.t.database.db
      .updateTable('subscription_charge')
      .set({ created_at: Date.now() - DAY - 60_000 })
      .where('order_reference', '=', charge.orderReference)
      .execute();
    expect(await stuck()).toBe(before + 1);
    expect((await subscription('settle', charge.orderReference, 'failed')).code).toBe(0);
    expect(await stuck()).toBe(before);
  });
});

describe('subscription settle', () => {
  it('paid: the payment is checked at EveryPay and applied as its callback would be; again, or a late callback, changes nothing', async () => {
    const stuck = await stuckRenewal();
    const { customer, id } = stuck;
    // While it is pending the subscription waits: not renewed, and not cancelled (409).
    expectErrorBody(await call(s, customer, 'DELETE', `/subscription/${id}`), 409, 'Conflict');
    const settled = await subscription('settle', stuck.orderReference, 'paid', stuck.paymentReference);
    expect(settled.code, settled.stderr).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({ orderReference: stuck.orderReference, outcome: 'settled', state: 'settled' });
    const paid = await subscriptionRow(s, id);
    expect(paid).toMatchObject({ status: 'ACTIVE', period_number: 2, period_start: stuck.due, failed_attempts: 0 });
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'settled', reference: stuck.paymentReference });
    expect(await pendingListed()).not.toContainEqual(expect.objectContaining({ orderReference: stuck.orderReference }));
    const mails = await mailJobs(s, id);

    const again = await subscription('settle', stuck.orderReference, 'paid', stuck.paymentReference);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'unchanged', state: 'settled' });
    const contrary = await subscription('settle', stuck.orderReference, 'failed');
    expect(contrary.code).toBe(1);
    expect(contrary.stderr).toContain(`charge ${stuck.orderReference} is settled, not pending: nothing changed`);
    // EveryPay's callback comes after all.
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    await s.everypay.notify(stuck.paymentReference);
    await s.everypay.callbacksIdle();
    expect(await subscriptionRow(s, id)).toEqual(paid);
    expect(await mailJobs(s, id)).toEqual(mails);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'settled' });
    expect(s.everypay.paymentsFor(stuck.orderReference)).toHaveLength(1);
  });

  it('failed: the retry schedule from the due date, mailed; the customer may cancel again', async () => {
    const stuck = await stuckRenewal();
    const settled = await subscription('settle', stuck.orderReference, 'failed');
    expect(settled.code, settled.stderr).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({
      outcome: 'failed',
      state: 'failed',
      subscription: { id: stuck.id, status: 'FAILED', periodNumber: 1 },
    });
    expect(await subscriptionRow(s, stuck.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: stuck.due + DAY });
    expect(await mailJobs(s, stuck.id)).toEqual(['purchased', 'billingFailed']);
    const cancelled = await call(s, stuck.customer, 'DELETE', `/subscription/${stuck.id}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await subscriptionRow(s, stuck.id)).toMatchObject({ status: 'ENDED' });
  });

  it('refuses, changing nothing: an unknown reference, a payment that is not the charge’s or says otherwise, a fresh charge, a bad command line', async () => {
    const stuck = await stuckRenewal();
    const other = await stuckRenewal();
    const before = [await chargesOf(s, stuck.id), await subscriptionRow(s, stuck.id)];
    const refused = async (args: string[], code: number, message: string) => {
      const result = await subscription('settle', ...args);
      expect(result.code, result.stdout).toBe(code);
      expect(result.stderr).toContain(message);
    };
    await refused(['SUB0-1P1', 'paid', stuck.paymentReference], 1, 'no subscription charge has the order reference SUB0-1P1');
    await refused([stuck.orderReference, 'paid', other.paymentReference], 1, `is for ${other.orderReference}, 7.50 EUR, not for charge`);
    await refused([stuck.orderReference, 'paid', 'no-such-payment'], 1, 'everypay does not know the payment no-such-payment');
    await refused(
      [stuck.orderReference, 'failed', stuck.paymentReference],
      1,
      `says the payment ${stuck.paymentReference} is settled, not failed`,
    );
    await refused([stuck.orderReference, 'paid'], 2, 'subscription settle <orderReference> paid <paymentReference>');
    await refused([stuck.orderReference, 'refunded', stuck.paymentReference], 2, 'subscription settle');
    expect([await chargesOf(s, stuck.id), await subscriptionRow(s, stuck.id)]).toEqual(before);
    // Touched a moment ago: a billing run may be applying the gateway's answer.
    await s.t.database.db
      .updateTable('subscription_charge')
      .set({ updated_at: Date.now() })
      .where('order_reference', '=', stuck.orderReference)
      .execute();
    await refused([stuck.orderReference, 'failed'], 1, "may be in a billing run's hands");
    expect((await chargesOf(s, stuck.id)).at(-1)).toMatchObject({ state: 'pending' });
    expect(await mailJobs(s, stuck.id)).toEqual(['purchased']);
  });
});

describe('subscription settle, the payment refunded in the portal before it was settled', () => {
  it('paid is refused (the money went back); failed fails the renewal, and the rest of a part refund is refunded', async () => {
    const stuck = await stuckRenewal();
    const amountCents = (await chargesOf(s, stuck.id)).at(-1)!.amount_cents;
    await s.everypay.refund(stuck.paymentReference, 100);
    const paid = await subscription('settle', stuck.orderReference, 'paid', stuck.paymentReference);
    expect(paid.code).toBe(1);
    expect(paid.stderr).toContain(`says the payment ${stuck.paymentReference} is refunded, not paid; nothing changed`);
    expect((await subscriptionRow(s, stuck.id)).period_number).toBe(1);

    const failed = await subscription('settle', stuck.orderReference, 'failed', stuck.paymentReference);
    expect(failed.code, failed.stderr).toBe(0);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      outcome: 'refund-due',
      state: 'refund_due',
      subscription: { id: stuck.id, status: 'FAILED', periodNumber: 1 },
    });
    await bill(s, Date.now());
    expect(s.everypay.payment(stuck.paymentReference)!.standingCents).toBe(0);
    expect((await chargesOf(s, stuck.id)).at(-1)).toMatchObject({ state: 'refunded' });
    expect(amountCents).toBeGreaterThan(100);
  });
});
