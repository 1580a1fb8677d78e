import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { openCreateForm, payOnTestGateway, placeOrder, setFrontendUrl } from './purchase-helpers.js';

// After the bank the shopper lands on the front-end's finished or failed page. Those links carried the
// order id and checksum but not the order's language (the API's own return URL did), so a shopper who
// paid in Russian landed on a page that had to guess its language. They carry it now, as the return does.

const FRONTEND = 'https://shop.example';

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  await setFrontendUrl(t.database.db, 'WEB', FRONTEND);
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

/** A guest's order placed in `language`, not yet paid. */
async function guestOrder(language: string, paymentMethodId: string) {
  const book = await stockedBook(t, shop, 5, 12);
  return placeOrder(t, shop, {}, [[book, 1]], { form: { paymentMethodId }, headers: { 'x-app-language': language }, startPayment: false });
}

/** The front-end page a link opens, and its query. */
function landing(location: string) {
  const url = new URL(location);
  return { page: `${url.origin}${url.pathname}`, query: Object.fromEntries(url.searchParams) };
}

describe("the front-end's pages after the bank say the order's language", () => {
  it('paid in Russian: the finished page is asked for in Russian, and its link reads the order', async () => {
    const order = await guestOrder('ru', 'TEST_GATEWAY');
    const landed = landing(await payOnTestGateway(t, order.path));
    expect(landed).toEqual({
      page: `${FRONTEND}/checkout/finished`,
      query: { orderId: String(order.orderId), checksum: order.checksum, language: 'ru' },
    });
    const summary = await t.app.inject({
      method: 'POST',
      url: '/bank/payment-result',
      payload: { orderId: Number(landed.query.orderId), checksum: landed.query.checksum },
    });
    expect(summary.statusCode, summary.body).toBe(200);
    expect(summary.json()).toMatchObject({ result: 'SUCCESS', order: { code: order.code } });
  });

  it('declined in English: the failed page is asked for in English', async () => {
    const order = await guestOrder('en', 'TEST_GATEWAY');
    expect(landing(await payOnTestGateway(t, order.path, 'decline'))).toEqual({
      page: `${FRONTEND}/checkout/failed`,
      query: { orderId: String(order.orderId), checksum: order.checksum, language: 'en' },
    });
  });

  it('nothing to pay online, in Russian: create-form sends the front-end to the finished page in Russian', async () => {
    const order = await guestOrder('ru', 'CASH_ON_DELIVERY');
    const form = await openCreateForm(t, order.path);
    expect(landing(form.url)).toEqual({
      page: `${FRONTEND}/checkout/finished`,
      query: { orderId: String(order.orderId), checksum: order.checksum, language: 'ru' },
    });
  });
});
