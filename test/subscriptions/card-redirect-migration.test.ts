import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as cardRedirectMigration from '../../src/db/migrations/2026_11_29_0800_add_subscription_card_redirect.js';
import { call, createCustomer, saveCard, startSubscriptionShop, type SubscriptionShop } from './helpers.js';

// Migration 2026_11_29_0800 (subscription_card.redirect) goes down and up again on both engines with
// cards in the table, and keeps them; a card from before it has no form kept.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

const columns = async () =>
  (await s.t.database.db.introspection.getTables()).find((table) => table.name === 'subscription_card')!.columns.map((c) => c.name);

describe('migration 2026_11_29_0800_add_subscription_card_redirect', () => {
  it('goes down and up again, keeping the cards', async () => {
    const db = s.t.database.db;
    const customer = await createCustomer(db);
    const saved = await saveCard(s, customer);
    expect((await call(s, customer, 'POST', '/subscription-credit-card')).statusCode).toBe(200);
    const rows = () =>
      db
        .selectFrom('subscription_card')
        .select(['id', 'state', 'payment_reference'])
        .where('client_account_id', '=', customer.clientAccountId)
        .orderBy('id')
        .execute();
    const before = await rows();
    expect(before.map((row) => row.state)).toEqual(['ACTIVE', 'PENDING']);
    expect(await columns()).toContain('redirect');

    await cardRedirectMigration.down(db);
    expect(await columns()).not.toContain('redirect');
    expect(await rows()).toEqual(before);

    await cardRedirectMigration.up(db);
    expect(await columns()).toContain('redirect');
    expect(await rows()).toEqual(before);
    const redirects = await db
      .selectFrom('subscription_card')
      .select('redirect')
      .where('client_account_id', '=', customer.clientAccountId)
      .execute();
    expect(redirects).toEqual([{ redirect: null }, { redirect: null }]);
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toMatchObject([{ id: saved }]);
  });
});
