import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { balance, importCards, ledger, newCode } from './helpers.js';

// The back office imports a physical card's value again, lower than what was already spent from it
// online. The change went onto the ledger as it came, and the balance went below zero: the balance
// check answered the card valid with -10.00 on it. Such a line is a bad line now: the card keeps its
// value (and its date), and the other lines are imported.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } });
  shop = await setUpShop(t);
});
afterAll(() => t?.close());
const db = () => t.database.db;

describe('import gift-cards lowering a card below what was spent from it', () => {
  it('is a bad line that changes nothing; lowering to what is left, or above, is taken', async () => {
    const code = newCode();
    await importCards(t, [{ code, balance: 30, expiresAt: '2099-12-31' }]);
    // 14.10 + 5.90 courier: the card pays 20.00 of it, 10.00 is left.
    const book = await stockedBook(t, shop, 10, 14.1);
    const who = await fill(t, { ip: '10.3.0.1' }, [[book, 1]]);
    expect((await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: shop.methods.COURIER })).statusCode).toBe(200);
    expect((await call(t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    expect((await ledger(db(), code)).balanceCents).toBe(1000);

    const other = newCode();
    const response = await importLines(t, 'gift-cards', [
      { code, balance: 10, expiresAt: '2099-06-30' },
      { code: other, balance: 5, expiresAt: '2099-12-31' },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.outcomes).toEqual({ created: 1 });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ line: 1 });
    expect(JSON.stringify(body.errors[0])).toContain('20.00');
    expect(JSON.stringify(body.errors)).not.toContain(code);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1000, entrySumCents: 1000, kinds: ['IMPORT', 'RESERVE'] });
    expect((await balance(t, code)).json()).toEqual({ valid: true, balance: 10, currency: 'EUR', expiresAt: '2099-12-31T22:00:00.000Z' });

    // Down to what was spent: nothing left on it, never below.
    expect(await importCards(t, [{ code, balance: 20, expiresAt: '2099-12-31' }])).toMatchObject({ outcomes: { updated: 1 } });
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, entrySumCents: 0, kinds: ['IMPORT', 'RESERVE', 'IMPORT'] });
  });
});
