import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { declinedRenewal } from './late-settle-helpers.js';
import {
  DAY,
  MIT_PATH,
  bill,
  callbackUrlOf,
  chargesOf,
  mitPayments,
  subscriptionRow,
  startMailingShop,
  type MailingShop,
} from './helpers.js';

// A renewal EveryPay declined (FAILED, retrying) whose retry settles at the moment the bank settles the
// declined first attempt after all. Each pays the same period: one of them does, and the other's money
// goes back (refund_due, its refund queued). On PostgreSQL the retry's outcome read the subscription
// unlocked while the late settle held it, and then wrote the period over it: both charges settled, the
// customer paid the period twice and nothing was refunded.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop({ EVERYPAY_TIMEOUT_MS: '15000' });
});
afterAll(() => s.close());

describe('a declined renewal settled late while its retry settles', () => {
  it('pays the period once: one charge settled, the other refund_due, the period one month on', async () => {
    const { id, end, reference, token } = await declinedRenewal(s);
    const db = s.t.database.db;
    // The retry is charged and settled at EveryPay, its answer and callback lost: pending here.
    s.everypay.setCardOutcome(token, 'settled');
    s.everypay.setCallbackUrl(null);
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    expect(await bill(s, end + DAY + 1000)).toMatchObject({ pending: 1 });
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    const retry = (await chargesOf(s, id)).at(-1)!;
    expect(retry).toMatchObject({ period_number: 2, attempt: 2, state: 'pending' });
    const retryReference = s.everypay.paymentsFor(retry.order_reference)[0]!.reference;
    expect(mitPayments(s, id)).toHaveLength(3);

    // The bank settles the first attempt; its callback and the retry's arrive together. On PostgreSQL the
    // subscription's row is held until the late settle waits for it, and the retry's outcome after it.
    let late: ReturnType<typeof s.everypay.settle>;
    let settledRetry: ReturnType<typeof s.everypay.notify>;
    if (engine === 'postgres') {
      await db.transaction().execute(async (trx) => {
        await sql`select id from subscription where id = ${id} for update`.execute(trx);
        late = s.everypay.settle(reference);
        await until('the late settle to wait for the subscription', async () => (await lockWaiters(db)) >= 1);
        settledRetry = s.everypay.notify(retryReference);
        await until('the retry to wait for it too', async () => (await lockWaiters(db)) >= 2);
      });
    } else {
      late = s.everypay.settle(reference);
      settledRetry = s.everypay.notify(retryReference);
    }
    expect(answers(await late!)).toEqual([[200, { outcome: 'applied' }]]);
    expect(answers(await settledRetry!)).toEqual([[200, { outcome: 'applied' }]]);

    const states = (await chargesOf(s, id)).map((charge) => charge.state);
    expect(states[0]).toBe('settled');
    expect(states.slice(1).sort()).toEqual(['refund_due', 'settled']);
    const row = await subscriptionRow(s, id);
    expect(row).toMatchObject({ status: 'ACTIVE', period_number: 2, period_start: end, failed_attempts: 0 });
    expect(Number(row.period_end)).toBeLessThan(end + 32 * DAY);
  });
});
