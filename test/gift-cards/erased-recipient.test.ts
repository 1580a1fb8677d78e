import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redeliverCard } from '../../src/modules/gift-cards/gift-cards.jobs.js';
import { call, type Who } from '../basket/helpers.js';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { as } from '../profile/helpers.js';
import { card, dateIn } from './helpers.js';

// A virtual card bought for a later day whose recipient erased their data before it (DELETE
// /client-account: the card's recipient becomes the erased placeholder). On the day, the recipient's job
// minted a code, the mailer dropped the mail to the `.invalid` placeholder, and the card was recorded
// mailed: the buyer's list said delivered, nobody had the code, and `gift-card redeliver` refused the card
// as delivered already. The buyer's money was on a card no one could reach. Now it is undeliverable, as
// one whose address does not exist: no code is minted, the buyer is told, and the operator can send it on.

let t: AccountsTestApp;
let shop: Shop;
let voucher: number;
let book: number;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m', TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 100);
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => t?.close());
const db = () => t.database.db;

/** A guest buys a book and a virtual card of 25.00 for `recipientEmail`, delivered in three days: the order's id. */
async function buyCard(recipientEmail: string, billingEmail: string): Promise<number> {
  const basket: Who = await fill(t, { ip: '10.0.5.1' }, [[book, 1]]);
  const giftCard = { amount: 25, recipientName: 'Saaja Nimi', recipientEmail, deliveryDate: dateIn(3) };
  const added = await call(t, 'POST', '/basket/add-product', basket, { productId: voucher, quantity: 1, giftCard });
  expect(added.statusCode, added.body).toBe(200);
  const token = (added.headers['basket-token'] as string | undefined) ?? basket.token;
  const paid = await call(t, 'POST', '/basket/add-gift-card', { ...basket, token }, { code: await card(t, 100) });
  expect(paid.statusCode, paid.body).toBe(200);
  const placed = await checkout(t, { ...basket, token }, checkoutForm(shop, { billingEmail, paymentMethodId: 'TEST_GATEWAY' }));
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  expect((await t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
  await t.drainJobs();
  return link.orderId;
}

describe('a virtual card whose recipient erased their data before its delivery date', () => {
  it('is not recorded delivered: its buyer is told, and the operator can send it to another address', async () => {
    const recipient = uniqueEmail('saaja');
    const token = await registerVerified(t, recipient);
    const buyer = uniqueEmail('ostja');
    const orderId = await buyCard(recipient, buyer);
    expect((await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);

    await t.jobs.worker.drain({ includeDelayed: true });
    await t.drainJobs();
    const issued = await db().selectFrom('gift_card').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
    expect(issued.mailed_at).toBeNull();
    expect(issued.undeliverable_at).not.toBeNull();
    expect(issued.code_hmac).toMatch(/^pending:/);
    expect(Number(issued.balance_cents)).toBe(2500);
    const told = await t.smtp.waitFor((m) => JSON.stringify(m.to).includes(buyer) && /ei õnnestunud kätte toimetada/.test(m.subject ?? ''));
    expect(told.subject).toContain('25,00 €');
    expect(`${told.subject} ${told.text}`).not.toContain('erased');

    const sentOn = await redeliverCard(db(), Number(issued.id), 'teine.saaja@example.ee', Date.now());
    expect(sentOn).toMatchObject({ id: Number(issued.id), recipientEmail: 'teine.saaja@example.ee' });
    await t.jobs.worker.drain({ includeDelayed: true });
    await t.drainJobs();
    const mail = await t.smtp.waitFor((m) => JSON.stringify(m.to).includes('teine.saaja@example.ee'));
    expect(mail.text).toContain('25,00 €');
    // The new recipient is greeted without a name: the one on the card is the erasure's placeholder.
    expect(`${mail.subject} ${mail.text} ${mail.html}`).not.toContain('[erased]');
    expect(mail.text).toMatch(/^Tere! /);
    const delivered = await db().selectFrom('gift_card').select('mailed_at').where('id', '=', issued.id).executeTakeFirstOrThrow();
    expect(delivered.mailed_at).not.toBeNull();
  });
});
