import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import {
  DAY,
  call,
  chargesOf,
  createCustomer,
  mailJobs,
  mitPayments,
  saveCard,
  startSubscriptionShop,
  subscribe,
  type SubscriptionShop,
} from './helpers.js';

// POST /subscription sent again (a double click, an app retrying an answer lost on a poor connection):
// the same plan asked again within the resubmit window answers the subscription the first one made,
// as a checkout sent twice answers its order. It was a 409 "you already have a subscription of this
// kind", which the front-end shows as an error about a subscription that was made.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(() => s.close());

const subscriptionsOf = async (customer: Parameters<typeof subscribe>[1]) =>
  (await call(s, customer, 'GET', '/subscription')).json() as { id: number; status: string }[];

describe('POST /subscription sent again', () => {
  it('a trial: the same subscription answered again, one trial, one purchased mail', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const first = await subscribe(s, customer, 'AUDIO1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ status: 'TRIAL' });
    const again = await subscribe(s, customer, 'AUDIO1');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await subscriptionsOf(customer)).toHaveLength(1);
    expect(await mailJobs(s, first.json().id)).toEqual(['purchased']);
  });

  it('a paid first month: the same subscription answered again, charged once', async () => {
    const customer = await createCustomer(s.t.database.db);
    const cardId = await saveCard(s, customer);
    const first = await subscribe(s, customer, 'SHELF5', cardId);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ status: 'ACTIVE' });
    const again = await subscribe(s, customer, 'SHELF5', cardId);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(mitPayments(s, first.json().id)).toHaveLength(1);
    expect((await chargesOf(s, first.json().id)).map((charge) => charge.state)).toEqual(['settled']);
    expect(await subscriptionsOf(customer)).toHaveLength(1);
  });

  it('twice at once: one subscription, charged once, both answered 201 with it', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const answers = await Promise.all([subscribe(s, customer, 'SHELF5'), subscribe(s, customer, 'SHELF5')]);
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    const [one, two] = answers.map((answer) => answer.json() as { id: number; status: string });
    expect(two!.id).toBe(one!.id);
    expect(mitPayments(s, one!.id)).toHaveLength(1);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: one!.id, status: 'ACTIVE' })]);
    expect(await mailJobs(s, one!.id)).toEqual(['purchased']);
  });

  it('another plan of the family, or the same one after the resubmit window or a cancel, is still a 409', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const first = (await subscribe(s, customer, 'AUDIO1')).json() as { id: number };
    expectErrorBody(await subscribe(s, customer, 'AUDIOMAX'), 409, 'Conflict');
    const cancelled = await call(s, customer, 'DELETE', `/subscription/${first.id}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expectErrorBody(await subscribe(s, customer, 'AUDIO1'), 409, 'Conflict');

    const other = await createCustomer(s.t.database.db);
    await saveCard(s, other);
    const earlier = (await subscribe(s, other, 'AUDIO1')).json() as { id: number };
    await s.t.database.db
      .updateTable('subscription')
      .set({ created_at: Date.now() - DAY })
      .where('id', '=', earlier.id)
      .execute();
    expectErrorBody(await subscribe(s, other, 'AUDIO1'), 409, 'Conflict');
    expect(await subscriptionsOf(other)).toHaveLength(1);
  });
});
