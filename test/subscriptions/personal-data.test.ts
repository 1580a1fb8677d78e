import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCharge } from '../../src/modules/subscriptions/billing.service.js';
import { insertChargeOnce } from '../../src/modules/subscriptions/charges.repository.js';
import { lockSubscription } from '../../src/modules/subscriptions/subscriptions.repository.js';
import { expectErrorBody } from '../helpers/http.js';
import { MIT_PATH, bill, call, chargesOf, mitPayments, startSubscriptionShop, subscriptionRow, type SubscriptionShop } from './helpers.js';
import { createTakeCatalogue, subscriber, take, type TakeCatalogue } from './takes-helpers.js';

// Subscriptions in "your data": the export lists a person's subscriptions with their charges, saved
// cards (never the token) and takes; the erasure ends the subscriptions at once, so no later billing
// run charges a person who is gone, deletes the cards and takes, keeps the charges, and touches
// nobody else. It waits while one of their charges is at the gateway.

let s: SubscriptionShop;
let books: TakeCatalogue;
beforeAll(async () => {
  s = await startSubscriptionShop();
  books = await createTakeCatalogue(s, 2);
});
afterAll(async () => s.close());

const erase = (token: string) =>
  s.t.app.inject({ method: 'DELETE', url: '/client-account', headers: { authorization: `Bearer ${token}` }, payload: {} });

describe('subscriptions in "your data"', () => {
  it('exports subscriptions, charges, cards without their tokens, and takes', async () => {
    const sub = await subscriber(s, 'SHELF5');
    expect((await take(s, sub, books.ebooks[0])).statusCode).toBe(201);
    const response = await call(s, sub.customer, 'GET', '/client-account/export');
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().subscriptions;
    expect(data.subscriptions).toEqual([
      expect.objectContaining({ id: sub.id, plan: 'SHELF5', status: 'ACTIVE', trial: false, cancelAtPeriodEnd: false, endedAt: null }),
    ]);
    expect(data.subscriptions[0].charges).toEqual([
      expect.objectContaining({ period: 1, purpose: 'PERIOD', amount: 7.5, state: 'settled' }),
    ]);
    expect(data.cards).toEqual([expect.objectContaining({ state: 'ACTIVE', isDefault: true, lastFour: expect.stringMatching(/^\d{4}$/) })]);
    expect(data.takes).toEqual([
      expect.objectContaining({ subscriptionId: sub.id, productId: books.ebooks[0], kind: 'EBOOK', returnedAt: null }),
    ]);
    const token = s.everypay.cards().at(-1)!.token;
    expect(JSON.stringify(response.json())).not.toContain(token);
  });

  it('erasure ends the subscriptions, deletes cards and takes, keeps the charges, and no billing run charges them again', async () => {
    const gone = await subscriber(s, 'SHELF5');
    const other = await subscriber(s, 'SHELF5');
    for (const who of [gone, other]) expect((await take(s, who, books.ebooks[1])).statusCode).toBe(201);
    const before = await subscriptionRow(s, gone.id);
    // Each period ends a month after its subscription started by the real clock: the run is past both.
    const dueBoth = Math.max(Number(before.period_end), Number((await subscriptionRow(s, other.id)).period_end)) + 1000;

    const erased = await erase(gone.customer.token);
    expect(erased.statusCode, erased.body).toBe(204);

    const row = await subscriptionRow(s, gone.id);
    expect(row).toMatchObject({ status: 'ENDED', live_key: null, card_id: null, next_attempt_at: null });
    const db = s.t.database.db;
    const account = gone.customer.clientAccountId;
    expect(await db.selectFrom('subscription_card').select('id').where('client_account_id', '=', account).execute()).toEqual([]);
    expect(await db.selectFrom('subscription_take').select('id').where('client_account_id', '=', account).execute()).toEqual([]);
    expect(await chargesOf(s, gone.id)).toHaveLength(1);

    await bill(s, dueBoth);
    expect(mitPayments(s, gone.id)).toHaveLength(1);
    // The other subscriber is billed as before and keeps what they hold.
    expect(mitPayments(s, other.id)).toHaveLength(2);
    expect(await subscriptionRow(s, other.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect(await db.selectFrom('subscription_take').select('id').where('subscription_id', '=', other.id).execute()).toHaveLength(1);
  });

  it('is refused while a charge of theirs is at the gateway, and changes nothing', async () => {
    const sub = await subscriber(s, 'SHELF5');
    const end = Number((await subscriptionRow(s, sub.id)).period_end);
    s.everypay.breakApi({ status: 503 }, 1, MIT_PATH);
    expect((await bill(s, end + 1000)).pending).toBe(1);

    expectErrorBody(await erase(sub.customer.token), 409, 'Conflict');
    expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 1 });
    const cards = await s.t.database.db
      .selectFrom('subscription_card')
      .select('id')
      .where('client_account_id', '=', sub.customer.clientAccountId)
      .execute();
    expect(cards).toHaveLength(1);
  });

  it('waits for a renewal claimed at the same moment and then refuses: the claimed charge is never made for a person who is gone', async () => {
    const sub = await subscriber(s, 'SHELF5');
    const row = await subscriptionRow(s, sub.id);
    let claimed!: () => void;
    const claimedNow = new Promise<void>((resolve) => (claimed = resolve));
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    // A billing run's claim (billing.service.ts claimRenewal), held open before its commit.
    const claim = s.t.database.db.transaction().execute(async (trx) => {
      await lockSubscription(trx, sub.id);
      const fields = {
        period_number: 2,
        purpose: 'PERIOD' as const,
        attempt: 1,
        plan_id: Number(row.plan_id),
        amount_cents: 750,
        gateway: 'everypay',
      };
      await insertChargeOnce(trx, newCharge({ id: sub.id }, fields, Date.now()));
      claimed();
      await committed;
    });
    await claimedNow;
    const erasure = erase(sub.customer.token);
    await new Promise((resolve) => setTimeout(resolve, 300));
    commit();
    await claim;
    expectErrorBody(await erasure, 409, 'Conflict');
    expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 1 });
  });
});
