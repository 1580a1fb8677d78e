import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call, type BasketAnswer, type Who } from '../basket/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook, exportRows, openCreateForm, orderStatus, productStock } from './purchase-helpers.js';

// The whole flow for each kind of customer and each way of paying, through HTTP as the front-end
// drives it: a basket with a book, an e-book (unless it is paid at the parcel's hand-over, which an
// e-book is not: digital-only-payment.test.ts) and a discount code, the delivery chosen, the checkout
// form's meta, checkout, create-form (and the test gateway's page), then the worker. The order must
// cost what the basket showed; the code is counted once; processing leaves its traces.

type Kind = 'GUEST' | 'SIMPLE' | 'BUSINESS' | 'WHOLESALE';
interface Case {
  name: string;
  kind: Kind;
  payment: 'CASH_ON_DELIVERY' | 'TEST_GATEWAY' | 'INVOICE' | 'PAY_IN_SHOP';
  delivery: 'COURIER' | 'SHOP';
  clientType: 'PYSIKLIENT' | 'ETTEVOTE';
}

const CASES: Case[] = [
  { name: 'a guest pays cash to the courier', kind: 'GUEST', payment: 'CASH_ON_DELIVERY', delivery: 'COURIER', clientType: 'PYSIKLIENT' },
  {
    name: 'a retail client pays on the test gateway page',
    kind: 'SIMPLE',
    payment: 'TEST_GATEWAY',
    delivery: 'COURIER',
    clientType: 'PYSIKLIENT',
  },
  { name: 'a business client pays by invoice', kind: 'BUSINESS', payment: 'INVOICE', delivery: 'COURIER', clientType: 'ETTEVOTE' },
  {
    name: 'a wholesale client pays by invoice, priced without VAT',
    kind: 'WHOLESALE',
    payment: 'INVOICE',
    delivery: 'COURIER',
    clientType: 'ETTEVOTE',
  },
  {
    name: 'a retail client pays in the shop where they pick up',
    kind: 'SIMPLE',
    payment: 'PAY_IN_SHOP',
    delivery: 'SHOP',
    clientType: 'PYSIKLIENT',
  },
];

/** The payment methods the checkout form offers each kind for a parcel (TEST_GATEWAY on, EveryPay not configured). */
const METHODS: Record<Kind, string[]> = {
  GUEST: ['TEST_GATEWAY', 'PAY_IN_SHOP', 'CASH_ON_DELIVERY'],
  SIMPLE: ['TEST_GATEWAY', 'PAY_IN_SHOP', 'CASH_ON_DELIVERY'],
  BUSINESS: ['TEST_GATEWAY', 'INVOICE', 'PAY_IN_SHOP'],
  WHOLESALE: ['TEST_GATEWAY', 'INVOICE', 'PAY_IN_SHOP'],
};
/** Paid when the parcel is handed over: never for a basket with an e-book. */
const PAID_AT_HAND_OVER: ReadonlySet<string> = new Set(['CASH_ON_DELIVERY', 'PAY_IN_SHOP']);

let t: TestApp;
let origin: string;
let shop: Shop;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  ({ t, origin } = await createListeningApp({ env: { SMTP_URL: smtp.url } }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const db = () => t.database.db;
const cents = (euros: number) => Math.round(euros * 100);
const usesOf = async (code: string) =>
  Number((await db().selectFrom('discount_code').select('used_count').where('code', '=', code).executeTakeFirstOrThrow()).used_count);

async function buyer(kind: Kind): Promise<Who> {
  if (kind === 'GUEST') return {};
  return { bearer: (await createCustomer(db(), { kind })).token };
}

/** Pays what create-form answered: the gateway's page for TEST_GATEWAY (Pay posted, the browser's return followed), nothing otherwise. */
async function pay(c: Case, path: string): Promise<void> {
  const form = await openCreateForm(t, path);
  if (c.payment !== 'TEST_GATEWAY') {
    expect(form).toEqual({
      url: expect.stringMatching(/\/checkout\/finished\?orderId=\d+&checksum=[0-9a-f]+&language=et$/),
      method: 'GET',
      fields: {},
    });
    return;
  }
  expect(form.url.startsWith(`${origin}/payment/test/pay/`)).toBe(true);
  const pressed = await t.app.inject({
    method: 'POST',
    url: new URL(form.url).pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'action=pay',
  });
  expect(pressed.statusCode, pressed.body).toBe(303);
  const back = new URL(pressed.headers.location as string);
  const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(returned.statusCode).toBe(303);
  expect(returned.headers.location).toMatch(/\/checkout\/finished\?/);
}

function expectSameMoney(order: Record<string, unknown>, basket: BasketAnswer, vatIncluded: boolean) {
  const lines = order.lines as Array<{ productId: number; quantity: number; unitPrice: number; total: number }>;
  expect(lines.map((line) => [line.productId, line.quantity, line.unitPrice])).toEqual(
    basket.items.map((item) => [item.productId, item.quantity, item.unitPrice]),
  );
  // The lines' totals are after the code's share: together they are the subtotal less the discount.
  expect(lines.reduce((sum, line) => sum + cents(line.total), 0)).toBe(cents(basket.subtotal) - cents(basket.discountAmount));
  expect(order).toMatchObject({
    subtotal: basket.subtotal,
    discount: basket.discountAmount,
    delivery: expect.objectContaining({ methodId: basket.deliveryMethod!.id, price: basket.deliveryCost }),
    vatIncluded,
  });
  const vat = basket.vat.reduce((sum, rate) => sum + cents(rate.vat), 0);
  expect(vat).toBeGreaterThan(0);
  expect(cents(order.vat as number)).toBe(vat);
  // With VAT the basket's total is paid; without (wholesale) the net total and its VAT.
  expect(cents(order.total as number)).toBe(vatIncluded ? cents(basket.total) : cents(basket.total) + vat);
}

describe('the whole flow per customer kind and payment method', () => {
  for (const [index, c] of CASES.entries()) {
    it(c.name, async () => {
      const discount = `KIND${index}`;
      // Codes leave wholesale out unless they name it.
      const kinds = ['GUEST', 'RETAIL', 'BUSINESS', 'WHOLESALE'];
      expect((await importLines(t, 'discount-codes', [{ code: discount, percent: 10, customerKinds: kinds }])).statusCode).toBe(200);
      const book = await stockedBook(t, shop, 5, 20);
      const digital = PAID_AT_HAND_OVER.has(c.payment) ? null : await ebook(t, 8);
      const who = await fill(t, await buyer(c.kind), [[book, 2], ...(digital === null ? [] : [[digital, 1] as [number, number]])]);
      basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: discount }));
      const choice =
        c.delivery === 'SHOP' ? { deliveryMethodId: shop.methods.SHOP, shopCode: 'TLN1' } : { deliveryMethodId: shop.methods.COURIER };
      basketOf(await call(t, 'PUT', '/basket/delivery', who, choice));
      const basket = basketOf(await call(t, 'GET', '/basket', who));
      expect(basket.discounts).toEqual([expect.objectContaining({ code: discount, applied: true })]);
      expect(basket.discountAmount).toBeGreaterThan(0);
      expect(basket.vatIncluded).toBe(c.kind !== 'WHOLESALE');

      const meta = await call(t, 'GET', '/checkout/meta', who);
      expect(meta.statusCode, meta.body).toBe(200);
      expect((meta.json().paymentMethods as Array<{ id: string }>).map((method) => method.id)).toEqual(
        METHODS[c.kind].filter((method) => digital === null || !PAID_AT_HAND_OVER.has(method)),
      );
      expect(meta.json().contact === null).toBe(c.kind === 'GUEST');

      const form = checkoutForm(shop, { ...choice, paymentMethodId: c.payment });
      const placed = await checkout(t, who, form);
      expect(placed.statusCode, placed.body).toBe(200);
      // The front-end sending the same checkout again gets the same order, and the code is not counted again.
      const again = await checkout(t, who, form);
      expect(again.json()).toEqual(placed.json());
      expect(await usesOf(discount)).toBe(1);
      const { orderId, checksum, path } = orderLink(placed.json().location);
      const code = (await db().selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow()).code!;
      expect(await productStock(db(), book)).toEqual({ webStock: 5, reserved: 2 });

      const read = await call(t, 'GET', `/order/${code}${who.bearer ? '' : `?checksum=${checksum}`}`, who);
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json()).toMatchObject({ status: 'NEW', discountCode: discount, payment: { methodId: c.payment } });
      expectSameMoney(read.json(), basket, c.kind !== 'WHOLESALE');

      await pay(c, path);
      expect(await orderStatus(db(), orderId)).toBe('PENDING_PROCESSING');
      await t.drainJobs();
      // No back office configured: processed, and parked for the hand-off.
      expect(await orderStatus(db(), orderId)).toBe('PENDING_NAV_PROCESSING');
      expect(await productStock(db(), book)).toEqual({ webStock: 3, reserved: 0 });
      expect(await usesOf(discount)).toBe(1);

      expect(await exportRows(t, code)).toEqual([expect.objectContaining({ sourceType: 'ONLINE', clientType: c.clientType })]);
      const mail = await smtp.waitFor((message) => message.subject?.includes(code) === true);
      expect(JSON.stringify(mail.to)).toContain('mari@example.ee');

      if (who.bearer) {
        const bought = await call(t, 'GET', '/bought-product', who);
        expect(bought.statusCode, bought.body).toBe(200);
        expect(bought.json()).toEqual(
          expect.arrayContaining([
            ...(digital === null
              ? []
              : [expect.objectContaining({ productId: digital, orderCode: code, download: { entitled: true, available: false } })]),
            expect.objectContaining({ productId: book, orderCode: code, quantity: 2, download: null }),
          ]),
        );
      } else {
        expect((await call(t, 'GET', '/bought-product', who)).statusCode).toBe(401);
      }
    });
  }
});

describe('GET /checkout/meta', () => {
  it("gives a client's saved contact data, and null for a guest", async () => {
    const book = await stockedBook(t, shop, 5);
    const customer = await createCustomer(db(), { kind: 'BUSINESS', firstName: 'Jaan', lastName: 'Tamm' });
    const client = await fill(t, { bearer: customer.token }, [[book, 1]]);
    const meta = await call(t, 'GET', '/checkout/meta', client);
    expect(meta.statusCode, meta.body).toBe(200);
    expect(meta.json().contact).toEqual({
      name: 'Jaan Tamm',
      email: expect.stringMatching(/@example\.ee$/),
      phone: null,
      address: 'Rüütli 2',
      city: 'Tartu',
      postcode: '51007',
      countryNavCode: 'EE',
    });
    const guest = await fill(t, {}, [[book, 1]]);
    const guestMeta = await call(t, 'GET', '/checkout/meta', guest);
    expect(guestMeta.statusCode, guestMeta.body).toBe(200);
    expect(guestMeta.json().contact).toBeNull();
    expect(guestMeta.json().countries).toContainEqual(expect.objectContaining({ navCode: 'EE', isDefault: true }));
  });
});
