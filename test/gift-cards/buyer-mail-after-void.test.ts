import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, type Shop } from '../orders/helpers.js';
import { dateIn } from './helpers.js';
import { paidCardOrder } from './paid-card-order.js';

// The buyer of a virtual card is mailed that it is on its way (to whom, when) by a job the card's
// issuing queues. A card voided before that mail went (its order refunded while the mail server was
// refusing) was still announced to the buyer after the refund, as if the gift would arrive.

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

it("does not tell the buyer a card is on its way once the card was voided with its order's refund", async () => {
  const giftCard = { amount: 25, recipientName: 'Mari Maasikas', recipientEmail: 'mari.voided@example.ee', deliveryDate: dateIn(1) };
  const { orderId, order } = await paidCardOrder(t, shop, voucher, giftCard);
  // The mail server refuses for a while: the issuing commits, its mails wait for their retries.
  smtp.failNext(10);
  await t.drainJobs();
  expect(await db().selectFrom('gift_card').select('id').where('order_id', '=', orderId).execute()).toHaveLength(1);

  const key = await createApiKey(db(), 'refunds', Date.now());
  const refunded = await t.app.inject({
    method: 'POST',
    url: `/admin/orders/${(await order()).code}/refund`,
    headers: { authorization: `Bearer ${key}` },
    payload: {},
  });
  expect(refunded.statusCode, refunded.body).toBe(200);
  expect((await order()).status).toBe('CANCELLED');
  smtp.failNext(0);
  await t.jobs.worker.drain({ includeDelayed: true });

  const cancelled = await smtp.waitFor((mail) => /tühistatud|cancelled/.test(mail.subject ?? ''));
  expect(cancelled.subject).toContain((await order()).code);
  expect(smtp.mails.filter((mail) => mail.subject?.includes('Mari Maasikas'))).toEqual([]);
});
