import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Who } from '../basket/helpers.js';
import { card, dateIn } from '../gift-cards/helpers.js';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { as } from '../profile/helpers.js';

// Virtual gift cards in "your data": a card the person bought (their message) and one sent to
// them (their name and email) are in the export; the erasure takes the person out of both and
// leaves the other person's side as it was.

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

/** Buys a book and a virtual card for `recipientEmail` with the message; answers the order's id. */
async function buyCard(who: Who, recipientEmail: string, message: string, billingEmail: string, senderName?: string): Promise<number> {
  const basket = await fill(t, who, [[book, 1]]);
  const giftCard = { amount: 25, recipientName: 'Saaja Nimi', recipientEmail, message, deliveryDate: dateIn(3), senderName };
  const added = await call(t, 'POST', '/basket/add-product', basket, { productId: voucher, quantity: 1, giftCard });
  expect(added.statusCode, added.body).toBe(200);
  const token = (added.headers['basket-token'] as string | undefined) ?? basket.token;
  // A virtual card is paid first (not on delivery): a gift card pays all of it.
  const paid = await call(t, 'POST', '/basket/add-gift-card', { ...basket, token }, { code: await card(t, 100) });
  expect(paid.statusCode, paid.body).toBe(200);
  const placed = await checkout(t, { ...basket, token }, checkoutForm(shop, { billingEmail, paymentMethodId: 'TEST_GATEWAY' }));
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  const orderId = link.orderId;
  // Nothing left to pay online: opening the payment link marks it paid, and the worker issues the card.
  expect((await t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
  await t.drainJobs();
  // Delivered by the back office: the erasure waits for open orders.
  await t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', orderId).execute();
  return orderId;
}

describe('gift cards in "your data"', () => {
  it('exports the cards bought and received, and the erasure takes the person out of both', async () => {
    const email = uniqueEmail('dora');
    const token = await registerVerified(t, email);
    const bought = await buyCard({ bearer: token }, 'friend@example.ee', 'Dora soovib head sünnipäeva', email);
    const received = await buyCard({}, email.toUpperCase(), 'Sõbralt', 'giver@example.ee');

    const data = (await as(t, token)('GET', '/client-account/export')).json();
    expect(data.giftCards).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ role: 'buyer', recipientEmail: 'friend@example.ee', message: 'Dora soovib head sünnipäeva' }),
        expect.objectContaining({ role: 'recipient', recipientName: 'Saaja Nimi', amount: 25 }),
      ]),
    );
    // The giver's words are not the recipient's data.
    expect(JSON.stringify(data.giftCards)).not.toContain('Sõbralt');

    expect((await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const rows = await t.database.db
      .selectFrom('virtual_gift_card_purchase')
      .selectAll()
      .where('order_id', 'in', [bought, received])
      .execute();
    const mine = rows.find((row) => Number(row.order_id) === bought)!;
    const theirs = rows.find((row) => Number(row.order_id) === received)!;
    expect(mine).toMatchObject({ recipient_email: 'friend@example.ee', message: '' });
    expect(mine.buyer_email).toMatch(/@erased\.invalid$/);
    expect(theirs).toMatchObject({ recipient_name: '[erased]', message: 'Sõbralt', buyer_email: 'giver@example.ee' });
    expect(theirs.recipient_email).toMatch(/@erased\.invalid$/);
    expect(JSON.stringify(rows).toLowerCase()).not.toContain(email.toLowerCase());
    // The issued cards keep their money, without her.
    const cards = await t.database.db.selectFrom('gift_card').selectAll().where('order_id', 'in', [bought, received]).execute();
    expect(cards).toHaveLength(2);
    expect(JSON.stringify(cards).toLowerCase()).not.toContain(email.toLowerCase());
    expect(cards.find((card) => Number(card.order_id) === received)).toMatchObject({ recipient_name: '[erased]', balance_cents: 2500 });
  });

  it('takes the message and sender name of a card the person bought as a guest with their email off the issued card too', async () => {
    const email = uniqueEmail('guestbuyer');
    // Bought before the account, billed to the address the person then registers and confirms.
    const bought = await buyCard({}, 'friend2@example.ee', 'Palju õnne, Eerik!', email, 'Eha Eerikson');
    expect((await register(t, email)).statusCode).toBe(200);
    const mail = await t.smtp.waitFor((m) => (m.text ?? '').includes('verificationToken=') && JSON.stringify(m.to).includes(email));
    const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    const token = verified.json().accessToken as string;
    const exported = (await as(t, token)('GET', '/client-account/export')).json();
    expect(exported.giftCards).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: 'buyer', message: 'Palju õnne, Eerik!', senderName: 'Eha Eerikson' })]),
    );

    expect((await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const purchase = await t.database.db
      .selectFrom('virtual_gift_card_purchase')
      .selectAll()
      .where('order_id', '=', bought)
      .executeTakeFirstOrThrow();
    expect(purchase).toMatchObject({ recipient_email: 'friend2@example.ee', message: '', sender_name: '' });
    // The issued card keeps its money and its recipient, without the buyer's words or name.
    const issued = await t.database.db.selectFrom('gift_card').selectAll().where('order_id', '=', bought).executeTakeFirstOrThrow();
    expect(issued).toMatchObject({ recipient_email: 'friend2@example.ee', balance_cents: 2500, message: '', sender_name: '' });
  });
});
