import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import { bill, chargesOf, refundRequests, releaseHeldCallbacks, startMailingShop, type MailingShop } from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// A subscription charge settled for nothing (refund_due) whose payment an operator refunded in part in
// EveryPay's portal before the shop's refund went: EveryPay shows it refunded with money still
// standing. The refunder took any refunded state for the whole refund: it marked the charge refunded and
// mailed the customer so, and the rest of the money was kept. It now refunds what is still standing.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(() => releaseHeldCallbacks(s));

describe('a charge to refund whose payment was refunded in part at the gateway', () => {
  it('has the rest refunded before it is marked refunded', async () => {
    const { id, reference } = await settledForNothing(s);
    const amount = (await chargesOf(s, id)).at(-1)!.amount_cents;
    // The operator's part refund in the portal, and its callback.
    expect(answers(await s.everypay.refund(reference, 100))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, id)).at(-1)!.state).toBe('refund_due');

    await bill(s, Date.now());
    await s.everypay.callbacksIdle();
    expect(s.everypay.payment(reference)!.standingCents).toBe(0);
    expect(refundRequests(s, reference).map((r) => (r.body as { amount: number }).amount)).toEqual([(amount - 100) / 100]);
    expect((await chargesOf(s, id)).at(-1)!.state).toBe('refunded');

    // Nothing more to refund: another run sends nothing.
    await bill(s, Date.now());
    expect(refundRequests(s, reference)).toHaveLength(1);
  });
});
