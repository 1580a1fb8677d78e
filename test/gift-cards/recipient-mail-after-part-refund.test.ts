import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, type Shop } from '../orders/helpers.js';
import { dateIn } from './helpers.js';
import { paidCardOrder } from './paid-card-order.js';

// A virtual card bought for delivery on a later day, and a part of the order refunded before that day:
// past the order's other things the refund is taken off the card (what is left on it goes back to the
// buyer). The recipient's mail, sent on the delivery day, named the card as the sum it was bought for,
// and the recipient found less on it than they were told they had been given.

let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;
let voucher: number;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url, CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } }));
  shop = await setUpShop(t);
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
const db = () => t.database.db;

it('tells the recipient what is on the card when a refund took part of it before it was sent', async () => {
  const giftCard = { amount: 25, recipientName: 'Mari Maasikas', recipientEmail: 'mari.part@example.ee', deliveryDate: dateIn(2) };
  const { orderId, order } = await paidCardOrder(t, shop, voucher, giftCard);
  await t.drainJobs();
  const card = () =>
    db().selectFrom('gift_card').select(['balance_cents', 'mailed_at']).where('order_id', '=', orderId).executeTakeFirstOrThrow();
  expect(await card()).toMatchObject({ mailed_at: null });

  // The book (20.00) and delivery first, then 15.00 of the card: 10.00 is left on it.
  const paid = await db().selectFrom('customer_order').select(['total_cents']).where('id', '=', orderId).executeTakeFirstOrThrow();
  const key = await createApiKey(db(), 'refunds', Date.now());
  const refundCents = Number(paid.total_cents) - 2500 + 1500;
  const refunded = await t.app.inject({
    method: 'POST',
    url: `/admin/orders/${(await order()).code}/refund`,
    headers: { authorization: `Bearer ${key}` },
    payload: { amount: refundCents / 100 },
  });
  expect(refunded.statusCode, refunded.body).toBe(200);
  expect(Number((await card()).balance_cents)).toBe(1000);

  await t.jobs.worker.drain({ includeDelayed: true });
  const mail = await smtp.waitFor((m) => JSON.stringify(m.to).includes('mari.part@example.ee'));
  expect(mail.subject).toContain('10,00 €');
  expect(mail.text).toContain('10,00 €');
  expect(mail.subject).not.toContain('25,00 €');
  expect(mail.text).not.toContain('25,00 €');
});
