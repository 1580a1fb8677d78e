import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { call, createCustomer, saveCard, startSubscriptionShop, subscribe, type SubscriptionShop } from './helpers.js';

// A plan change after a cancel: the subscription still runs (TRIAL or ACTIVE, cancelAtPeriodEnd) and
// the refusal says so, in the caller's language, instead of naming a status GET never shows.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

describe('PUT /subscription/{id}/plan after DELETE /subscription/{id}', () => {
  it('is a 409 saying the subscription ends at its period end, not a status CANCELLED it does not have', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const sub = (await subscribe(s, customer, 'AUDIO1')).json() as { id: number };
    const cancelled = await call(s, customer, 'DELETE', `/subscription/${sub.id}`);
    expect(cancelled.json()).toMatchObject({ status: 'TRIAL', cancelAtPeriodEnd: true });
    const messages: Record<string, string> = {};
    for (const language of ['en', 'et', 'ru']) {
      const changed = await s.t.app.inject({
        method: 'PUT',
        url: `/subscription/${sub.id}/plan`,
        headers: { authorization: `Bearer ${customer.token}`, 'x-app-language': language },
        payload: { planId: s.plans.AUDIOMAX },
      });
      messages[language] = expectErrorBody(changed, 409, 'Conflict').message;
    }
    expect(messages.en).toBe('This subscription is cancelled at the end of its period and can no longer be changed.');
    for (const message of Object.values(messages)) expect(message).not.toContain('CANCELLED');
    expect(new Set(Object.values(messages)).size).toBe(3);
  });
});
