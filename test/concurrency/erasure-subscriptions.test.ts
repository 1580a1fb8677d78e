import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duringErasure } from '../gdpr/erasure-helpers.js';
import { expectErrorBody } from '../helpers/http.js';
import { call, createCustomer, saveCard, startSubscriptionShop, subscribe, type SubscriptionShop } from '../subscriptions/helpers.js';

// A client's card or subscription started while their erasure's transaction is open waits for it
// and is a 401, as the ended session answers: nothing of the client is saved after the erasure.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

const rowsOf = (table: 'subscription_card' | 'subscription', clientAccountId: number) =>
  s.t.database.db.selectFrom(table).select('id').where('client_account_id', '=', clientAccountId).execute();

describe('during the erasure', () => {
  it('saving a card is a 401 and saves none', async () => {
    const client = await createCustomer(s.t.database.db);
    const started = await duringErasure(s.t, client, () => call(s, client, 'POST', '/subscription-credit-card'));
    expectErrorBody(started, 401, 'Unauthorized');
    expect(await rowsOf('subscription_card', client.clientAccountId)).toEqual([]);
  });

  it('subscribing is a 401 and starts none', async () => {
    const client = await createCustomer(s.t.database.db);
    await saveCard(s, client);
    const started = await duringErasure(s.t, client, () => subscribe(s, client, Object.keys(s.plans)[0]!));
    expectErrorBody(started, 401, 'Unauthorized');
    expect(await rowsOf('subscription', client.clientAccountId)).toEqual([]);
  });
});
