import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardExpired, cardsToPrune } from '../../src/modules/subscriptions/cards.repository.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A saved card's expiry is decided twice: in JavaScript (cardExpired: the prune's choice of the
// next default card) and in SQL (cardsToPrune: which cards go). Both rest on one cut-off in
// cards.repository.ts; here they are pinned to each other, and to the rule (usable through its
// expiry month, UTC), on the last and first millisecond of months and years.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const moments = [
  ['the last millisecond of June 2027', Date.UTC(2027, 5, 30, 23, 59, 59, 999)],
  ['the first millisecond of July 2027', Date.UTC(2027, 6, 1)],
  ['the last millisecond of 2027', Date.UTC(2027, 11, 31, 23, 59, 59, 999)],
  ['the first millisecond of 2028', Date.UTC(2028, 0, 1)],
] as const;

/** Every expiry from two years before `now`'s year to two after: each month of each year. */
const expiries = [2025, 2026, 2027, 2028, 2029].flatMap((year) => Array.from({ length: 12 }, (_, i) => [year, i + 1] as const));

describe('when a saved card has expired', () => {
  it.each(moments)('at %s, the SQL prunes exactly the cards cardExpired calls expired', async (_, now) => {
    const customer = await createCustomer(t.database.db);
    const ids = new Map<number, readonly [number, number]>();
    for (const [year, month] of expiries) {
      const row = await t.database.db
        .insertInto('subscription_card')
        .values({
          client_account_id: customer.clientAccountId,
          store_code: 'WEB',
          gateway: 'everypay',
          state: 'ACTIVE',
          order_reference: `EXP${customer.clientAccountId}-${year}-${month}`,
          payment_reference: null,
          redirect: null,
          token: `tok-${customer.clientAccountId}-${year}-${month}`,
          brand: 'visa',
          last_four: '4242',
          expiry_month: month,
          expiry_year: year,
          is_default: false,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.set(Number(row.id), [year, month]);
    }
    const pruned = new Set((await cardsToPrune(t.database.db, 0, now, [...ids.keys()])).map((card) => card.id));
    const expired = new Set(
      [...ids].filter(([, [year, month]]) => cardExpired({ expiry_year: year, expiry_month: month }, now)).map(([id]) => id),
    );
    expect([...pruned].sort()).toEqual([...expired].sort());
    // And the rule itself: usable through the month of `now`, expired from the month before it back.
    const date = new Date(now);
    const current = date.getUTCFullYear() * 12 + date.getUTCMonth();
    const byRule = [...ids].filter(([, [year, month]]) => year * 12 + month - 1 < current).map(([id]) => id);
    expect([...expired].sort()).toEqual(byRule.sort());
    expect(byRule.length).toBeGreaterThan(0);
    expect(byRule.length).toBeLessThan(ids.size);
  });
});
