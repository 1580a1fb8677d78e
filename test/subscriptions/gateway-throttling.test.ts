import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  MIT_PATH,
  activeShelfSubscriber,
  bill,
  billStalePending,
  chargesOf,
  mailJobs,
  releaseHeldCallbacks,
  subscriptionRow,
  type SubscriptionShop,
  startSubscriptionShop,
} from './helpers.js';
import { NOT_EVERYPAYS_404 } from '../helpers/everypay-server.js';

// EveryPay answers 429 when it throttles the shop's calls: "try later", the gateway unavailable for a
// moment, not a refusal of the charge. A renewal met by it is left pending for the next run, which
// charges it: the subscription does not fail and its customer is not told the billing failed. So is
// a refusal of the shop's own credentials (401), or a 404 from an API address that is not EveryPay's:
// the operator fixes them, the next run charges.

const THROTTLED = { status: 429, body: '{"error":{"code":4290,"message":"Too many requests"}}' };

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterEach(async () => {
  s.everypay.breakApi(null);
  await releaseHeldCallbacks(s);
});
afterAll(() => s.close());

// EveryPay's 401/403 refuse the shop's own API credentials: the operator's to fix, not the customer's card.
const CREDENTIALS_REFUSED = { status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' };

it.each([
  ['429', THROTTLED],
  ["401 (the shop's credentials)", CREDENTIALS_REFUSED],
  // EVERYPAY_API_URL naming another service: its 404 is the shop's setup, not EveryPay refusing the token.
  ["404 that is not EveryPay's", NOT_EVERYPAYS_404],
])('a renewal EveryPay answers %s stays pending, nothing failed or mailed; the next run charges it once', async (_, answer) => {
  const { id, end } = await activeShelfSubscriber(s);
  await s.everypay.callbacksIdle();
  const mailsBefore = await mailJobs(s, id);
  s.everypay.breakApi(answer, 1, MIT_PATH);
  expect(await bill(s, end + 1)).toMatchObject({ charged: 0, failed: 0, pending: 1 });
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 1, failed_attempts: 0 });
  expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['settled', 'pending']);
  expect(await mailJobs(s, id)).toEqual(mailsBefore);
  await billStalePending(s, id);
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
  expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['settled', 'settled']);
  expect(s.everypay.paymentsFor(`SUB${id}-2P1`)).toHaveLength(1);
});
