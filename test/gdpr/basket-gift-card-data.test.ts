import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// A virtual gift card waiting in a client's basket holds what the person typed for it: the
// recipient's name and address, their own message and the name they sign it with. That is theirs
// as much as the same details on a card they bought (the export's giftCards), so the basket's part
// of "your data" carries them with the line.

let t: TestApp;
let voucher: number;
const deliveryDate = () => new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestApp();
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => t?.close());

describe("a virtual gift card in the client's basket", () => {
  it('is exported with the details the client gave it', async () => {
    const client = await createCustomer(t.database.db);
    const giftCard = {
      amount: 30,
      recipientName: 'Jaan Tamm',
      recipientEmail: 'jaan.tamm@kingisaaja.ee',
      message: 'Palju õnne, vend!',
      senderName: 'Mari õde',
      deliveryDate: deliveryDate(),
    };
    basketOf(await call(t, 'POST', '/basket/add-product', { bearer: client.token }, { productId: voucher, quantity: 1, giftCard }));

    const response = await as(t, client.token)('GET', '/client-account/export');
    expect(response.statusCode, response.body).toBe(200);
    const [basket] = response.json().baskets;
    expect(basket.lines).toEqual([
      expect.objectContaining({
        productId: voucher,
        quantity: 1,
        giftCard: {
          amount: 30,
          recipientName: 'Jaan Tamm',
          recipientEmail: 'jaan.tamm@kingisaaja.ee',
          message: 'Palju õnne, vend!',
          senderName: 'Mari õde',
          deliveryDate: giftCard.deliveryDate,
        },
      }),
    ]);
  });
});
