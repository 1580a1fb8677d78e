import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import { bill, DAY, mailJobs, REFUND_PATH, refundRequests, releaseHeldCallbacks, startMailingShop, type MailingShop } from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// A charge settled for nothing (refund_due) that no refunder can refund (the gateway failing, for days) stayed
// refund_due for good: an operator who paid the customer back by hand could not record it (`mark-refunded` and
// `retry-refund` take refund_refused only), and once the gateway was back the next run refunded it a second
// time. After REFUND_DUE_GIVE_UP_MS (3 days) of tries it becomes refund_refused, with the last reason, for the
// operator's list and commands; marked refunded by hand, no run sends it again.

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

const subscription = (...args: string[]) => runCli(['subscription', ...args], env);
const chargeOf = (chargeId: number) =>
  s.t.database.db.selectFrom('subscription_charge').selectAll().where('id', '=', chargeId).executeTakeFirstOrThrow();

describe('a refund the gateway cannot make for days', () => {
  it('is handed to the operator after 3 days; marked refunded by hand, the gateway back, two runs refund nothing', async () => {
    const { id, reference, chargeId } = await settledForNothing(s);
    const dueSince = Number((await chargeOf(chargeId)).updated_at);
    const amountCents = s.everypay.payment(reference)!.standingCents;
    s.everypay.breakApi({ status: 500 }, Infinity, REFUND_PATH);
    await s.t.jobs.worker.drain({ includeDelayed: true });

    // Within the 3 days: left for the next try.
    expect(await bill(s, dueSince + 2 * DAY)).toMatchObject({ refunded: 0, refundsRefused: 0, refundsLeft: 1 });
    expect((await chargeOf(chargeId)).state).toBe('refund_due');
    // After them: refund_refused, with why.
    expect(await bill(s, dueSince + 3 * DAY)).toMatchObject({ refunded: 0, refundsRefused: 1, refundsLeft: 0 });
    const charge = await chargeOf(chargeId);
    expect(charge).toMatchObject({ state: 'refund_refused', refund_refused_at: dueSince + 3 * DAY });
    expect(charge.refund_refusal).toMatch(/^not refunded in 3 days of tries; the last: /);
    const listed = await subscription('charges', '--refund-refused');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`"id":${chargeId},`);

    // The operator paid it back by bank transfer and records it.
    const marked = await subscription('mark-refunded', String(chargeId));
    expect(marked.code, marked.stderr).toBe(0);
    expect((await chargeOf(chargeId)).state).toBe('refunded');

    // The gateway is back: neither of two runs, nor the job, refunds it again.
    s.everypay.breakApi(null);
    const sent = refundRequests(s, reference).length;
    expect(await bill(s, dueSince + 4 * DAY)).toMatchObject({ refunded: 0, refundsRefused: 0, refundsLeft: 0 });
    expect(await bill(s, dueSince + 5 * DAY)).toMatchObject({ refunded: 0, refundsRefused: 0, refundsLeft: 0 });
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(refundRequests(s, reference)).toHaveLength(sent);
    expect(s.everypay.payment(reference)!.standingCents).toBe(amountCents);
    expect((await mailJobs(s, id)).filter((kind) => kind === 'paymentRefundedByHand')).toHaveLength(1);
  });
});
