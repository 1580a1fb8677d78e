import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservedQuantity, rowCount } from '../helpers/table-counts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { call, checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { orderRow } from './purchase-helpers.js';

// A checkout sent again within 10 minutes of the order its basket made: the same form is a double
// submit and answers the first order; another form (another delivery, another address) answered
// the first order too, as if it had been placed as the new form said, where the same case with an
// Idempotency-Key was a 409. Now it is a 409 naming the order placed, and it changes nothing.

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } });
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.database.db;
const pickup = () => checkoutForm(shop, { deliveryMethodId: shop.methods.SHOP, shopCode: 'TLN1' });
const elsewhere = () => checkoutForm(shop, { shippingAddress: 'Rüütli 2', shippingCity: 'Tartu', shippingPostcode: '51007' });

/** What a refused resubmit must leave as it was: the orders, the first order's row, the basket, the stock held. */
async function snapshot(who: Parameters<typeof call>[3], orderId: number, book: number) {
  return {
    orders: await rowCount(db(), 'customer_order'),
    order: await orderRow(db(), orderId),
    basket: (await call(t, 'GET', '/basket', who)).json(),
    held: await reservedQuantity(db(), book),
  };
}

describe('a checkout of the same basket sent again without a key', () => {
  it('with the same form answers the first order; with another delivery or address is a 409 naming it, changing nothing', async () => {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    const first = await checkout(t, who, checkoutForm(shop));
    expect(first.statusCode, first.body).toBe(200);
    const { orderId } = orderLink(first.json().location);
    const { code } = await orderRow(db(), orderId);

    const again = await checkout(t, who, checkoutForm(shop));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());

    const before = await snapshot(who, orderId, book);
    for (const form of [pickup(), elsewhere()]) {
      const refused = await checkout(t, who, form, { 'x-app-language': 'en' });
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toEqual({
        name: 'Conflict',
        message: `Order ${code} was already placed from this basket with a different form; this one was not used. See the order, or fill the basket again for a new one.`,
        code: 0,
        status: 409,
      });
    }
    expect(await snapshot(who, orderId, book)).toEqual(before);
    // The double submit still answers the first order after the refusals.
    expect((await checkout(t, who, checkoutForm(shop))).json()).toEqual(first.json());
  });

  it("names the order in the caller's language", async () => {
    const who = await fill(t, {}, [[await stockedBook(t, shop, 5), 1]]);
    const first = await checkout(t, who, checkoutForm(shop));
    const { code } = await orderRow(db(), orderLink(first.json().location).orderId);
    for (const language of ['et', 'ru']) {
      const refused = await checkout(t, who, pickup(), { 'x-app-language': language });
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json().message).toContain(code);
    }
  });

  it('with a new Idempotency-Key and another form is the same 409; the first order keeps its own key', async () => {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    const first = await checkout(t, who, checkoutForm(shop), { 'idempotency-key': 'first-click' });
    expect(first.statusCode, first.body).toBe(200);
    const { orderId } = orderLink(first.json().location);
    const before = await snapshot(who, orderId, book);
    const reused = await checkout(t, who, pickup(), { 'idempotency-key': 'first-click' });
    expect(reused.statusCode, reused.body).toBe(409);
    const fresh = await checkout(t, who, pickup(), { 'idempotency-key': 'second-click' });
    expect(fresh.statusCode, fresh.body).toBe(409);
    expect(fresh.json().message).toContain((await orderRow(db(), orderId)).code);
    expect(await snapshot(who, orderId, book)).toEqual(before);
    // The same form under either key answers the first order.
    for (const key of ['first-click', 'third-click']) {
      const repeat = await checkout(t, who, checkoutForm(shop), { 'idempotency-key': key });
      expect(repeat.statusCode, repeat.body).toBe(200);
      expect(repeat.json()).toEqual(first.json());
    }
  });
});

describe('a checkout sent again with the same form, its fields in another order', () => {
  const reordered = (form: Record<string, unknown>) => Object.fromEntries(Object.entries(form).reverse());

  it('is the same form: answers the first order, by its basket and by its Idempotency-Key', async () => {
    for (const headers of [{}, { 'idempotency-key': 'reordered-fields' }] as Record<string, string>[]) {
      const who = await fill(t, {}, [[await stockedBook(t, shop, 5), 1]]);
      const first = await checkout(t, who, checkoutForm(shop), headers);
      expect(first.statusCode, first.body).toBe(200);
      const again = await checkout(t, who, reordered(checkoutForm(shop)), headers);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual(first.json());
    }
  });

  it('of an order placed when the form was hashed with its fields in the order sent: its retry is still recognised', async () => {
    const who = await fill(t, {}, [[await stockedBook(t, shop, 5), 1]]);
    const form = checkoutForm(shop);
    const first = await checkout(t, who, form, { 'idempotency-key': 'placed-before' });
    const { orderId } = orderLink(first.json().location);
    // What the order kept before: the hash of the form's fields in the order they were sent.
    const before = createHash('sha256').update(JSON.stringify(form)).digest('hex');
    await db().updateTable('customer_order').set({ request_hash: before }).where('id', '=', orderId).execute();
    for (const headers of [{}, { 'idempotency-key': 'placed-before' }] as Record<string, string>[]) {
      const again = await checkout(t, who, form, headers);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual(first.json());
    }
    expect((await checkout(t, who, pickup())).statusCode).toBe(409);
  });
});

describe('two checkouts of one basket at once with different forms', () => {
  it('make one order: one answers it, the other is a 409 naming it', async () => {
    for (let round = 0; round < 4; round++) {
      const book = await stockedBook(t, shop, 5);
      const who = await fill(t, { ip: `10.88.0.${round + 1}` }, [[book, 1]]);
      const before = await rowCount(db(), 'customer_order');
      const answers = await Promise.all([checkout(t, who, checkoutForm(shop)), checkout(t, who, pickup())]);
      expect(answers.map((answer) => answer.statusCode).sort(), answers.map((answer) => answer.body).join('\n')).toEqual([200, 409]);
      expect(await rowCount(db(), 'customer_order')).toBe(before + 1);
      const placed = answers.find((answer) => answer.statusCode === 200)!;
      const { orderId } = orderLink(placed.json().location);
      const row = await orderRow(db(), orderId);
      expect(answers.find((answer) => answer.statusCode === 409)!.json().message).toContain(row.code);
      // The order is the winner's form, whole: its delivery method is the one that form chose.
      const winner = answers.indexOf(placed);
      expect(Number(row.delivery_method_id)).toBe(winner === 0 ? shop.methods.COURIER : shop.methods.SHOP);
      expect(await reservedQuantity(db(), book)).toBe(1);
    }
  });
});
