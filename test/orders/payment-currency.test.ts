import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createForm, placeCardOrder, settleEveryPay, startEveryPayShop, viewOrder, type EveryPayShop } from './everypay-helpers.js';

// A euro order is paid only by euros on the shop's own EveryPay processing account. EveryPay keeps one
// currency per account, and a merchant may have several (another currency's, another shop's): a
// payment there, whatever its amount, is a mismatch like a payment of another sum, and the order waits.

let s: EveryPayShop;
beforeAll(async () => {
  // The shop set up with the merchant's dollar account by mistake: EveryPay makes its payments there.
  s = await startEveryPayShop({ EVERYPAY_ACCOUNT_NAME: 'USD3D1' }, { otherAccounts: { USD3D1: 'USD' } });
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

it('a payment EveryPay settled in dollars does not pay the euro order: a mismatch, the order unpaid', async () => {
  const order = await placeCardOrder(s);
  const { reference } = await createForm(s, order);
  expect(s.everypay.payment(reference)).toMatchObject({ accountName: 'USD3D1', currency: 'USD', initialCents: order.totalCents });
  const [sent] = await s.everypay.settle(reference);
  expect(sent!.status).toBe(200);
  expect(JSON.parse(sent!.answer!)).toEqual({ outcome: 'mismatch' });
  const after = await viewOrder(s.t, order);
  expect(after).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'], jobs: 0, reserved: 1 });
  expect(after.inbox).toEqual([{ reference, state: 'settled', outcome: 'mismatch', received: 1 }]);
});

it("a payment EveryPay holds on another of the merchant's accounts does not pay the order, though in euros and of its sum", async () => {
  const order = await placeCardOrder(s);
  const { reference } = await createForm(s, order);
  // What EveryPay holds for the reference is no longer on the account the shop is set up with.
  Object.assign(s.everypay.payment(reference)!, { accountName: 'EUR3D1', currency: 'EUR' });
  const [sent] = await s.everypay.settle(reference);
  expect(JSON.parse(sent!.answer!)).toEqual({ outcome: 'mismatch' });
  const after = await viewOrder(s.t, order);
  expect(after).toMatchObject({ status: 'PENDING_PAYMENT', jobs: 0 });
  expect(after.inbox).toEqual([{ reference, state: 'settled', outcome: 'mismatch', received: 1 }]);
});
