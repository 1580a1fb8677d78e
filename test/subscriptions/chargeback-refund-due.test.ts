import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import {
  bill,
  call,
  chargesOf,
  mailJobs,
  REFUND_PATH,
  refundRequests,
  releaseHeldCallbacks,
  startMailingShop,
  type MailingShop,
} from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// A charge the shop owes back (refund_due: settled late for a subscription that no longer wanted it) or whose
// refund EveryPay refused (refund_refused, on the operator's list to pay back by hand), charged back by the
// cardholder (or refunded whole in EveryPay's portal) before the shop's refund went. The callback moved only a
// settled charge, so this one stayed where it was: a refund_refused charge stayed on the operator's list, to be
// paid back a second time by hand, and neither kept the chargeback's rule that the disputed card is billed no
// more. The money is back with the customer either way: the callback now does what a refunder finding the payment
// refunded does (refunded, and the refund mailed once), and a chargeback retires the card as for a settled charge.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(async () => {
  s.everypay.breakApi(null);
  await releaseHeldCallbacks(s);
});

const cardsOf = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription-credit-card');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: number }[]).map((card) => card.id);
};
const stateOf = async (id: number) => (await chargesOf(s, id)).at(-1)!.state;

/** A charge settled for nothing whose refund EveryPay refused as asked (its 422), through a billing run: refund_refused. */
async function refusedRefund() {
  const charge = await settledForNothing(s);
  s.everypay.breakApi({ status: 422, body: '{"error":{"code":4024,"message":"Payment can not be refunded"}}' }, Infinity, REFUND_PATH);
  expect(await bill(s, Date.now())).toMatchObject({ refundsRefused: 1 });
  s.everypay.breakApi(null);
  expect(await stateOf(charge.id)).toBe('refund_refused');
  return charge;
}

describe('a charge the shop owes back, charged back', () => {
  it.each([
    ['refund_due', settledForNothing],
    ['refund_refused', refusedRefund],
  ] as const)('%s: refunded, its card retired, mailed once as returned by the bank, and never refunded', async (_, owed) => {
    const { customer, id, reference } = await owed(s);
    expect(await cardsOf(customer)).toHaveLength(1);
    const mailsBefore = await mailJobs(s, id);
    const refundsBefore = refundRequests(s, reference).length;

    // Twice at once, as EveryPay may deliver it.
    const sent = await withTableHeld(s.t.database.db, 'subscription_charge', () =>
      s.everypay.setState(reference, 'chargebacked', { times: 2 }),
    );
    expect(answers(sent)).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    expect(await stateOf(id)).toBe('refunded');
    expect(await cardsOf(customer)).toEqual([]);
    expect(await mailJobs(s, id)).toEqual([...mailsBefore, 'chargedBack']);

    // The refund job and the billing run find nothing to refund.
    await s.t.drainJobs();
    await bill(s, Date.now());
    expect(refundRequests(s, reference)).toHaveLength(refundsBefore);
    expect(await stateOf(id)).toBe('refunded');
    expect(await mailJobs(s, id)).toEqual([...mailsBefore, 'chargedBack']);
  });

  it('refund_refused, refunded whole in the portal instead: refunded, off the list, the card kept', async () => {
    const { customer, id, reference } = await refusedRefund();
    const amount = (await chargesOf(s, id)).at(-1)!.amount_cents;
    const mailsBefore = await mailJobs(s, id);

    expect(answers(await s.everypay.refund(reference, amount))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await stateOf(id)).toBe('refunded');
    expect(await cardsOf(customer)).toHaveLength(1);
    expect(await mailJobs(s, id)).toEqual([...mailsBefore, 'paymentRefunded']);
  });
});

// The refund job (or a billing run) may look the payment up before the chargeback's callback comes (EveryPay
// retries a callback it could not deliver): it finds it refunded whole and marks the charge refunded, as it must.
// The callback then moved nothing, and the card was retired only with a move: the disputed card stayed saved and
// the customer's next renewal charged it again.
it('refund_due charged back, the refunder seeing it before the callback: the card is retired all the same', async () => {
  const { customer, id, reference } = await settledForNothing(s);
  const refundsBefore = refundRequests(s, reference).length;
  s.everypay.holdCallbacks();
  const sent = s.everypay.setState(reference, 'chargebacked');
  await s.t.drainJobs();
  expect(await stateOf(id)).toBe('refunded');
  await sent;
  await releaseHeldCallbacks(s);
  expect(await cardsOf(customer)).toEqual([]);
  expect(refundRequests(s, reference)).toHaveLength(refundsBefore);
  expect((await mailJobs(s, id)).filter((kind) => kind === 'chargedBack')).toHaveLength(1);
  expect(await mailJobs(s, id)).not.toContain('paymentRefunded');
});
