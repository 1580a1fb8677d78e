import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { billDue } from '../../src/modules/subscriptions/index.js';
import type { EveryPayState } from '../helpers/everypay-server.js';
import { chargesOf, mailJobs, REFUND_PATH, refundRequests, releaseHeldCallbacks, startMailingShop, type MailingShop } from './helpers.js';
import { settledForNothing as settledForNothingOf } from './late-settle-helpers.js';

// The billing run's refund pass took the oldest refund_due charges by id (500 of them) and changed
// nothing on one it could not refund now (left refund_due, for the next run): once a batch's worth of
// them could never be refunded (EveryPay answering about their payments in a way the shop cannot read,
// say), every hourly run tried those same charges again and no later charge's money ever went back
// once its job had given up. The pass now takes the least recently tried first, as the look-up of
// stale pending charges does (stuck-charges.test.ts).

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop({ EVERYPAY_TIMEOUT_MS: '15000' });
});
afterAll(() => s.close());
afterEach(async () => {
  await releaseHeldCallbacks(s);
  // What a test left refund_due must not take the next one's places in a run.
  await s.t.database.db.updateTable('subscription_charge').set({ state: 'refund_refused' }).where('state', '=', 'refund_due').execute();
});

/**
 * A charge settled for nothing (refund_due, its job not run). The billing run that declines its renewal
 * leaves the refunds of those made before for later (EveryPay down for refunds meanwhile).
 */
async function settledForNothing() {
  s.everypay.breakApi({ status: 503 }, Infinity, REFUND_PATH);
  try {
    return await settledForNothingOf(s);
  } finally {
    s.everypay.breakApi(null);
  }
}

/** A billing run that tries at most two charges to refund. */
const billTwo = () => billDue(s.t.database.db, s.gateways, Date.now(), { cardTokens: s.cardTokens, refundBatch: 2 });

/**
 * A charge settled for nothing whose payment EveryPay now answers about in a state the shop does not
 * know: unreadable, so its refund is left for later by every try (no outage: the others are answered).
 */
async function unrefundable() {
  const charge = await settledForNothing();
  s.everypay.payment(charge.reference)!.state = 'under_review' as EveryPayState;
  return charge;
}

const stateOf = async (chargeId: number) =>
  (await s.t.database.db.selectFrom('subscription_charge').select('state').where('id', '=', chargeId).executeTakeFirstOrThrow()).state;

describe("the billing run's refunds", () => {
  it('charges it can never refund do not keep a later one from its refund: the least recently tried go first', async () => {
    const stuck = [await unrefundable(), await unrefundable()];
    const later = await settledForNothing();
    // Its job gave up (or died): only the billing run refunds it now.
    const reports = [await billTwo(), await billTwo()];
    expect(await stateOf(later.chargeId)).toBe('refunded');
    expect(refundRequests(s, later.reference)).toHaveLength(1);
    expect(s.everypay.payment(later.reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
    expect((await mailJobs(s, later.id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
    expect(reports.reduce((sum, report) => sum + report.refunded, 0)).toBe(1);
    for (const charge of stuck) expect(await stateOf(charge.chargeId)).toBe('refund_due');
  });

  it('more than a batch due: each run refunds the next ones, and every charge is refunded once', async () => {
    const due = [await settledForNothing(), await settledForNothing(), await settledForNothing()];
    expect((await billTwo()).refunded).toBe(2);
    expect((await billTwo()).refunded).toBe(1);
    for (const charge of due) {
      expect(await stateOf(charge.chargeId)).toBe('refunded');
      expect(s.everypay.payment(charge.reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
      expect((await mailJobs(s, charge.id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
    }
  });

  it('two runs at once refund each charge once, and mail it once', async () => {
    const due = [await settledForNothing(), await settledForNothing()];
    const bill = () => billDue(s.t.database.db, s.gateways, Date.now(), { cardTokens: s.cardTokens });
    const reports = await Promise.all([bill(), bill()]);
    expect(reports.reduce((sum, report) => sum + report.refunded, 0)).toBe(2);
    for (const charge of due) {
      expect(await stateOf(charge.chargeId)).toBe('refunded');
      const payment = s.everypay.payment(charge.reference)!;
      expect(payment).toMatchObject({ state: 'refunded', standingCents: 0 });
      expect((await chargesOf(s, charge.id)).at(-1)!.state).toBe('refunded');
      expect((await mailJobs(s, charge.id)).filter((kind) => kind === 'paymentRefunded')).toHaveLength(1);
    }
  });
});
