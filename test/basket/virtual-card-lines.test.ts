import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basketOf, call } from './helpers.js';

// A virtual gift card's line is priced at its card's amount, not at the product's price: the line's
// writes record that amount as the price the shopper saw, so no write makes it say its price changed.

let t: TestApp;
let voucher: number;
const deliveryDate = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestApp();
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => {
  await t?.close();
});

describe("a virtual gift card's line", () => {
  it('says no price change when its quantity is set again: its price is the card amount it was added at', async () => {
    const giftCard = { amount: 50, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate: deliveryDate() };
    const added = basketOf(await call(t, 'POST', '/basket/add-product', {}, { productId: voucher, quantity: 1, giftCard }));
    expect(added.items[0]).toMatchObject({ unitPrice: 50, notice: null });
    const who = { token: added.basketToken! };
    const changed = basketOf(await call(t, 'PUT', '/basket/change-quantity', who, { productId: voucher, quantity: 1 }));
    expect(changed.items[0]).toMatchObject({ unitPrice: 50, quantity: 1, notice: null });
    expect(basketOf(await call(t, 'GET', '/basket', who)).items[0]).toMatchObject({ unitPrice: 50, notice: null });
    // Its details replaced by adding it again (another amount) is no price change either.
    const replaced = basketOf(
      await call(t, 'POST', '/basket/add-product', who, { productId: voucher, quantity: 1, giftCard: { ...giftCard, amount: 20 } }),
    );
    expect(replaced.items[0]).toMatchObject({ unitPrice: 20, notice: null });
  });
});

describe('a virtual gift card line taken out', () => {
  it("leaves no details behind: a guest's card merged in later keeps its own amount and recipient", async () => {
    const client = await createCustomer(t.database.db);
    const stale = { amount: 50, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate: deliveryDate() };
    basketOf(await call(t, 'POST', '/basket/add-product', { bearer: client.token }, { productId: voucher, quantity: 1, giftCard: stale }));
    basketOf(await call(t, 'PUT', '/basket/change-quantity', { bearer: client.token }, { productId: voucher, quantity: 0 }));
    basketOf(await call(t, 'POST', '/basket/add-product', { bearer: client.token }, { productId: voucher, quantity: 1, giftCard: stale }));
    basketOf(await call(t, 'DELETE', `/basket/remove-product?productId=${voucher}`, { bearer: client.token }));

    const wanted = { amount: 20, recipientName: 'Mari Mets', recipientEmail: 'mari@example.ee', deliveryDate: deliveryDate() };
    const guest = basketOf(await call(t, 'POST', '/basket/add-product', {}, { productId: voucher, quantity: 1, giftCard: wanted }));
    const merged = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token: guest.basketToken! }));
    expect(merged.items).toEqual([
      expect.objectContaining({
        productId: voucher,
        unitPrice: 20,
        giftCard: expect.objectContaining({ amount: 20, recipientName: 'Mari Mets' }),
      }),
    ]);
  });
});
