import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { hashToken } from '../../src/infra/tokens.js';
import { localTime } from '../../src/infra/shop-time.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { payOnTestGateway } from '../orders/purchase-helpers.js';

// A virtual card's delivery date is checked when the card goes into the basket (today in Tallinn to a
// year ahead), but a client's basket is kept for as long as it holds lines: checked out once that day
// had passed, the order was placed with it. The card was then issued valid a year from the past day,
// and one whose day was more than a year back was made expired: its buyer paid and nobody got a card.

const DAY = 86_400_000;
const clock = fixedClock(Date.parse('2026-12-05T10:00:00+02:00'));
let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;
let voucher: number;
let voucherCode: string;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url, CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' }, clock }));
  shop = await setUpShop(t);
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
  voucherCode = (await t.database.db.selectFrom('product').select('code').where('id', '=', voucher).executeTakeFirstOrThrow()).code;
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const db = () => t.database.db;
const today = () => localTime(clock.now()).date;

/** A client whose session outlives the clock's moves (the helper's token lasts an hour). */
async function client(): Promise<Who> {
  const { token } = await createCustomer(db());
  await db()
    .updateTable('access_token')
    .set({ expires_at: clock.now() + 1000 * DAY })
    .where('token_hash', '=', hashToken(token))
    .execute();
  return { bearer: token };
}

const putCard = (who: Who, recipientEmail: string, deliveryDate: string) =>
  call(t, 'POST', '/basket/add-product', who, {
    productId: voucher,
    quantity: 1,
    giftCard: { amount: 40, recipientName: 'Jaan Tamm', recipientEmail, deliveryDate },
  });

const ordersOf = async (who: Who) => (await call(t, 'GET', '/order', who)).json() as Array<{ code: string }>;

async function pay(location: string): Promise<number> {
  const link = orderLink(location);
  await payOnTestGateway(t, link.path);
  const status = async () =>
    (await db().selectFrom('customer_order').select('status').where('id', '=', link.orderId).executeTakeFirstOrThrow()).status;
  await expect.poll(status, { timeout: 10_000 }).toBe('PENDING_PROCESSING');
  return link.orderId;
}

describe('a virtual card in the basket whose delivery date has passed by checkout', () => {
  it('is a 422 on its line naming the days it may be delivered on, and nothing is placed', async () => {
    const who = await client();
    await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
    expect((await putCard(who, 'jaan.late@example.ee', today())).statusCode).toBe(200);
    // Back thirteen months later: the day chosen is more than a year ago.
    clock.advance(400 * DAY);
    const refused = await checkout(t, who, checkoutForm(shop));
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual([{ field: `lines.${voucherCode}`, message: expect.stringContaining(today()) as unknown as string }]);
    expect(await ordersOf(who)).toEqual([]);

    // Chosen again, the card is bought and delivered today, valid a year from today.
    expect((await putCard(who, 'jaan.late@example.ee', today())).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    const orderId = await pay(placed.json().location);
    await t.jobs.worker.drain({ includeDelayed: true });
    const card = await db()
      .selectFrom('gift_card')
      .select(['expires_at', 'mailed_at'])
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(Number(card.expires_at)).toBeGreaterThan(clock.now() + 364 * DAY);
    expect(Number(card.mailed_at)).toBe(clock.now());
    await smtp.waitFor((mail) => JSON.stringify(mail.to).includes('jaan.late@example.ee'));
  });

  it('is refused the day after it too, while a card for today is not', async () => {
    const who = await client();
    await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
    expect((await putCard(who, 'jaan.day@example.ee', today())).statusCode).toBe(200);
    const sameDay = await checkout(t, who, checkoutForm(shop));
    expect(sameDay.statusCode, sameDay.body).toBe(200);

    await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
    expect((await putCard(who, 'jaan.day@example.ee', today())).statusCode).toBe(200);
    clock.advance(DAY);
    const nextDay = await checkout(t, who, checkoutForm(shop));
    expect(nextDay.statusCode, nextDay.body).toBe(422);
    expect(nextDay.json()).toEqual([{ field: `lines.${voucherCode}`, message: expect.any(String) as unknown as string }]);
    expect(await ordersOf(who)).toHaveLength(1);
  });
});
