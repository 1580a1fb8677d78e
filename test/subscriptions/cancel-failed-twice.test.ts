import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeShelfSubscriber, bill, call, mailJobs, startSubscriptionShop, subscriptionRow, type SubscriptionShop } from './helpers.js';

// DELETE /subscription/{id} of a subscription whose renewal failed (FAILED, retrying) ends it at once.
// Sent twice (a double click, a retry of an answer lost on its way), the second found it ENDED and
// answered 409 "cannot be changed": the customer was told the cancellation failed when it had been
// made. A cancellation at the period end sent twice already answered the first's result.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

describe('cancelling a subscription whose renewal failed, twice', () => {
  it('answers the second as the first: ENDED, and the cancellation mailed once', async () => {
    const { customer, id, end, token } = await activeShelfSubscriber(s);
    s.everypay.setCardOutcome(token, 'failed');
    await bill(s, end + 1000);
    expect((await subscriptionRow(s, id)).status).toBe('FAILED');

    const first = await call(s, customer, 'DELETE', `/subscription/${id}`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ id, status: 'ENDED' });
    const again = await call(s, customer, 'DELETE', `/subscription/${id}`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect((await mailJobs(s, id)).filter((kind) => kind === 'cancelled')).toHaveLength(1);
  });

  it('a subscription that never started (its first month declined) is still a 409', async () => {
    const { customer, id } = await activeShelfSubscriber(s);
    await s.t.database.db
      .updateTable('subscription')
      .set({ status: 'ENDED', live_key: null, ended_at: Date.now(), failed_attempts: 0 })
      .where('id', '=', id)
      .execute();
    expect((await call(s, customer, 'DELETE', `/subscription/${id}`)).statusCode).toBe(409);
  });
});
