import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { answers } from '../helpers/everypay-order.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import {
  bill,
  chargesOf,
  createCustomer,
  mailJobs,
  releaseHeldCallbacks,
  saveCard,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
  startSubscriptionShop,
} from './helpers.js';

// A subscription's charge is paid only by euros on the shop's own EveryPay processing account, as an
// order is (test/orders/payment-currency.test.ts): a payment in another currency, or held on another
// of the merchant's accounts, proves nothing of this charge whatever its amount, as an answer of
// another amount proves nothing. The period is not paid: the charge stays pending, recorded as mismatched
// at once with what EveryPay holds, which `subscription charges --mismatched` shows the operator, and the
// callback is answered as handled (a mismatch), not as an unknown payment.

let s: SubscriptionShop;
let env: Record<string, string>;
beforeAll(async () => {
  // Besides the shop's euro account the merchant has a dollar account and another euro one (another shop's, say).
  // A database file on SQLite, which the operator's command opens beside the shop.
  s = await startSubscriptionShop({}, { sqliteFile: true, everypay: { otherAccounts: { USD3D1: 'USD', EUR9: 'EUR' } } });
  env = { DATABASE_URL: s.t.config.databaseUrl, ...everypayEnv(s.everypay), TEST_GATEWAY: 'off' };
});
afterEach(() => releaseHeldCallbacks(s));
afterAll(() => s.close());

/** A customer on AUDIO1's trial, its card saved on the shop's own account; `end`: the trial's end. */
async function trialSubscriber() {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  await s.everypay.callbacksIdle();
  const token = s.everypay.cards().at(-1)!.token;
  const started = await subscribe(s, customer, 'AUDIO1');
  expect(started.statusCode, started.body).toBe(201);
  expect(started.json()).toMatchObject({ status: 'TRIAL' });
  const id = started.json().id as number;
  return { id, token, end: Number((await subscriptionRow(s, id)).period_end) };
}

/**
 * Bills the trial's end with EveryPay's callbacks held. The bank decides just after EveryPay answered
 * (sent for processing), and what EveryPay then holds is on `account`, in its currency, not the shop's.
 */
async function renewalHeldOn(subscriber: { id: number; token: string; end: number }, account: { accountName: string; currency: string }) {
  s.everypay.setCardOutcome(subscriber.token, 'settled', { processing: true });
  s.everypay.holdCallbacks();
  const report = await bill(s, subscriber.end + 1);
  expect(report).toMatchObject({ charged: 0, failed: 0, pending: 1 });
  const [charge] = await chargesOf(s, subscriber.id);
  const [payment] = s.everypay.paymentsFor(charge!.order_reference);
  Object.assign(payment!, account);
  expect(s.everypay.paymentsFor(charge!.order_reference)).toMatchObject([{ state: 'settled', ...account }]);
  return charge!;
}

/** What `subscription charges <list>` prints, line by line. */
async function listed(list: '--mismatched' | '--pending') {
  const result = await runCli(['subscription', 'charges', list], env);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { orderReference: string; mismatch: unknown });
}

it('a renewal EveryPay settled in dollars does not pay the period: the charge is recorded mismatched at once, and the operator sees it', async () => {
  const subscriber = await trialSubscriber();
  const { id } = subscriber;
  const mailsBefore = await mailJobs(s, id);
  const charge = await renewalHeldOn(subscriber, { accountName: 'USD3D1', currency: 'USD' });
  const [payment] = s.everypay.paymentsFor(charge.order_reference);
  const callbackAt = Date.now();
  expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'mismatch' }]]);
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'TRIAL', period_number: 0 });
  const [row] = await chargesOf(s, id);
  expect(row).toMatchObject({ state: 'pending', updated_at: charge.updated_at });
  expect(Number(row!.mismatch_at)).toBeGreaterThanOrEqual(callbackAt);
  expect(await mailJobs(s, id)).toEqual(mailsBefore);
  // Listed at once, with what the merchant portal shows of the payment; not yet among the stale pending ones.
  const mismatch = {
    reference: payment!.reference,
    orderReference: charge.order_reference,
    state: 'settled',
    amount: 9.99,
    currency: 'USD',
    ownAccount: false,
    seenAt: new Date(Number(row!.mismatch_at)).toISOString(),
  };
  expect((await listed('--mismatched')).find((line) => line.orderReference === charge.order_reference)).toMatchObject({
    subscriptionId: id,
    amount: 9.99,
    currency: 'EUR',
    mismatch,
  });
  expect((await listed('--pending')).map((line) => line.orderReference)).not.toContain(charge.order_reference);
  // The operator, having refunded the dollars in the portal, records the charge failed: the renewal is retried, and the list is clear.
  await s.t.database.db
    .updateTable('subscription_charge')
    .set({ updated_at: Date.now() - 11 * 60_000 })
    .where('id', '=', charge.id)
    .execute();
  const settled = await runCli(['subscription', 'settle', charge.order_reference, 'failed'], env);
  expect(settled.code, settled.stderr).toBe(0);
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 1 });
  expect((await listed('--mismatched')).map((line) => line.orderReference)).not.toContain(charge.order_reference);
});

it("a renewal settled in euros on another of the merchant's accounts does not pay the period either: recorded, answered as a mismatch", async () => {
  const subscriber = await trialSubscriber();
  const charge = await renewalHeldOn(subscriber, { accountName: 'EUR9', currency: 'EUR' });
  expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'mismatch' }]]);
  expect(await subscriptionRow(s, subscriber.id)).toMatchObject({ status: 'TRIAL', period_number: 0 });
  expect((await chargesOf(s, subscriber.id)).map((row) => row.state)).toEqual(['pending']);
  const line = (await listed('--mismatched')).find((one) => one.orderReference === charge.order_reference);
  expect(line?.mismatch).toMatchObject({ state: 'settled', amount: 9.99, currency: 'EUR', ownAccount: false });
});
