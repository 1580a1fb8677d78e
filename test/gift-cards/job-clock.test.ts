import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { localTime } from '../../src/infra/shop-time.js';
import { createProduct } from '../helpers/catalogue.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, type Shop } from '../orders/helpers.js';
import { paidCardOrder } from './paid-card-order.js';

// A virtual card's jobs (its issuing, its mails) took the system's time, not the app's clock as the
// checkout, the payment and processing do: under a clock more than a year back (a test's) the card was
// made and mailed "now", its mails found it past the end of its year and sent nothing.

const clock = fixedClock(Date.UTC(2024, 10, 4, 9));
let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;
let voucher: number;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url, CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' }, clock }));
  shop = await setUpShop(t);
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

describe("a virtual card's jobs, by the app clock", () => {
  it('issue the card at its time and mail its recipient on the delivery day', async () => {
    const today = localTime(clock.now()).date;
    const giftCard = { amount: 25, recipientName: 'Mari Maasikas', recipientEmail: 'mari.kell@example.ee', deliveryDate: today };
    const { orderId } = await paidCardOrder(t, shop, voucher, giftCard);
    await t.jobs.worker.drain({ includeDelayed: true });

    const card = await t.database.db
      .selectFrom('gift_card')
      .select(['created_at', 'mailed_at'])
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(Number(card.created_at)).toBe(clock.now());
    expect(Number(card.mailed_at)).toBe(clock.now());
    await smtp.waitFor((mail) => JSON.stringify(mail.to).includes('mari.kell@example.ee'));
  });
});
