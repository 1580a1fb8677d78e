import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { balance, card, newCode } from '../gift-cards/helpers.js';
import { add, basketOf, call, type Who } from './helpers.js';
import { importLines } from './import-helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// The wrong-code limits are settings: an app started with small ones (and each its own, so a
// setting read for the other's limit shows) refuses after that many wrong codes, not after the
// default 10. The default's behaviour is in discount-codes.test.ts and gift-cards/balance.test.ts.

let t: TestApp;
let book: number;
beforeAll(async () => {
  t = await createTestApp({ env: { DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP: '3/1h', GIFT_CARD_GUESS_RATE_LIMIT_PER_IP: '2/1h' } });
  book = await createProduct(t.database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER', price: 20 });
  const imported = await importLines(t, 'discount-codes', [{ code: 'TEN', percent: 10 }]);
  expect(imported.statusCode, imported.body).toBe(200);
});
afterAll(() => t.close());

/** A guest with a book in the basket, from the address given. */
async function guest(ip: string): Promise<Who> {
  const basket = await add(t, { ip }, book, 1);
  return { ip, token: basket.basketToken! };
}

describe('wrong-code limits set in the environment', () => {
  it('DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP=3/1h: after 3 wrong discount codes from an address, a 429 even for a right one', async () => {
    const who = await guest('192.0.2.10');
    const addCode = (code: string) => call(t, 'POST', '/basket/add-discount', who, { code });
    for (let i = 0; i < 3; i += 1) expect(expectFieldErrors(await addCode(`WRONG${i}`))).toEqual(['code']);
    const limited = await addCode('WRONG3');
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expectErrorBody(await addCode('TEN'), 429, 'Too Many Requests');
    // Another address still has its own 3.
    const other = await guest('192.0.2.11');
    expect(basketOf(await call(t, 'POST', '/basket/add-discount', other, { code: 'TEN' })).discounts[0]!.applied).toBe(true);
  });

  it('GIFT_CARD_GUESS_RATE_LIMIT_PER_IP=2/1h: 2 wrong gift-card codes (a balance check and a basket) and the address waits, a right code too', async () => {
    const code = await card(t, 5);
    const ip = '192.0.2.20';
    expect((await balance(t, code, ip)).json().valid).toBe(true);
    expect((await balance(t, newCode(), ip)).json().valid).toBe(false);
    const who = await guest(ip);
    expect(expectFieldErrors(await call(t, 'POST', '/basket/add-gift-card', who, { code: newCode() }))).toEqual(['code']);
    const limited = await balance(t, code, ip);
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expectErrorBody(await call(t, 'POST', '/basket/add-gift-card', who, { code }), 429, 'Too Many Requests');
    expect((await balance(t, code, '192.0.2.21')).json().valid).toBe(true);
  });
});
