import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { answers } from '../helpers/everypay-order.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import { bill, callbackUrlOf, chargesOf, REFUND_PATH, releaseHeldCallbacks, startMailingShop, type MailingShop } from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// A charge settled for nothing (refund_due) that an operator refunded in part in EveryPay's portal, whose refund of
// the rest EveryPay then refused for good (refund_refused): `subscription charges --refund-refused` gave only the
// charge's whole amount, so the operator paying it back by hand gave back the part refunded twice. The line now
// says what was refunded already and what is left to pay back, also when the part refund's callback was lost
// (the refunder's look-up, which saw it, records it).

let s: MailingShop;
let env: Record<string, string>;
beforeAll(async () => {
  s = await startMailingShop({}, { sqliteFile: true });
  env = { DATABASE_URL: s.t.config.databaseUrl, ...everypayEnv(s.everypay), TEST_GATEWAY: 'off' };
});
afterAll(() => s.close());
afterEach(async () => {
  s.everypay.breakApi(null);
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  await releaseHeldCallbacks(s);
});

const REFUSAL = '{"error":{"code":4024,"message":"Payment can not be refunded"}}';

async function listed(chargeId: number) {
  const run = await runCli(['subscription', 'charges', '--refund-refused'], env);
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return lines.find((line) => line.id === chargeId);
}

describe('a refused refund of a charge refunded in part in the portal', () => {
  it.each([
    ['its callback applied', true],
    ['its callback lost', false],
  ])('is listed with what is left to pay back (%s)', async (_, callbackArrives) => {
    const { id, reference, chargeId } = await settledForNothing(s);
    const amount = (await chargesOf(s, id)).at(-1)!.amount_cents;
    if (!callbackArrives) s.everypay.setCallbackUrl(null);
    const sent = await s.everypay.refund(reference, 300);
    if (callbackArrives) expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    s.everypay.setCallbackUrl(callbackUrlOf(s));

    s.everypay.breakApi({ status: 422, body: REFUSAL }, Infinity, REFUND_PATH);
    expect(await bill(s, Date.now())).toMatchObject({ refundsRefused: 1 });
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'refund_refused', refunded_cents: 300 });

    expect(await listed(chargeId)).toMatchObject({ amount: amount / 100, refunded: 3, toRefund: (amount - 300) / 100 });
  });
});
