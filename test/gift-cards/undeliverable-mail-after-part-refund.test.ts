import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, type Shop } from '../orders/helpers.js';
import { dateIn } from './helpers.js';
import { paidCardOrder } from './paid-card-order.js';

// A virtual card bought for a later day, part of the order refunded before that day (past the order's
// other things the refund is taken off the card), and the recipient's address refused on the day. The
// buyer's mail said their card "of 25,00 €" could not be delivered and that its value was kept, while the
// card held 10,00 €: what a redelivery would send, and what the recipient's own mail names.

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

it("tells the buyer what is on the card when a refund took part of it before the recipient's address was refused", async () => {
  smtp.refuseRecipient('mari.gone@example.ee', '550 5.1.1 No such user');
  const giftCard = { amount: 25, recipientName: 'Mari Maasikas', recipientEmail: 'mari.gone@example.ee', deliveryDate: dateIn(2) };
  const { orderId, order } = await paidCardOrder(t, shop, voucher, giftCard);
  await t.drainJobs();
  const card = () =>
    db()
      .selectFrom('gift_card')
      .innerJoin('virtual_gift_card_purchase', 'virtual_gift_card_purchase.gift_card_id', 'gift_card.id')
      .select(['gift_card.balance_cents', 'gift_card.undeliverable_at', 'virtual_gift_card_purchase.buyer_email'])
      .where('gift_card.order_id', '=', orderId)
      .executeTakeFirstOrThrow();
  const { buyer_email: buyerEmail } = await card();

  // The book (20.00) and delivery first, then 15.00 of the card: 10.00 is left on it.
  const paid = await db().selectFrom('customer_order').select(['total_cents']).where('id', '=', orderId).executeTakeFirstOrThrow();
  const key = await createApiKey(db(), 'refunds', Date.now());
  const refunded = await t.app.inject({
    method: 'POST',
    url: `/admin/orders/${(await order()).code}/refund`,
    headers: { authorization: `Bearer ${key}` },
    payload: { amount: (Number(paid.total_cents) - 2500 + 1500) / 100 },
  });
  expect(refunded.statusCode, refunded.body).toBe(200);
  expect(Number((await card()).balance_cents)).toBe(1000);

  await t.jobs.worker.drain({ includeDelayed: true });
  await t.drainJobs();
  expect((await card()).undeliverable_at).not.toBeNull();
  const told = await smtp.waitFor(
    (m) => JSON.stringify(m.to).includes(buyerEmail) && /ei õnnestunud kätte toimetada/.test(m.subject ?? ''),
  );
  expect(told.subject).toContain('10,00 €');
  expect(told.text).toContain('10,00 €');
  expect(told.subject).not.toContain('25,00 €');
  expect(told.text).not.toContain('25,00 €');
});
