import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { cardPayment, shopperReturns, startCardShop, type CardShop } from './processing-helpers.js';
import { orderStatus } from './purchase-helpers.js';

// The confirmation is queued when the order is processed and sent by the worker. An order cancelled
// before it went (its money all given back while the mail server was refusing) must not be confirmed
// after the buyer was told it is cancelled: they would take it for a new order, or think it stands.

let s: CardShop;
let smtp: SmtpCatcher;
let key: string;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  s = await startCardShop({ SMTP_URL: smtp.url });
  key = await createApiKey(s.t.database.db, 'back-office', Date.now());
});
afterAll(async () => {
  await s?.close();
  await smtp?.close();
});

it('sends no confirmation for an order cancelled before its confirmation could be sent; the cancellation still goes', async () => {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  smtp.failNext(1);
  await shopperReturns(s, order);
  await s.t.drainJobs();
  const subjects = () => smtp.mails.filter((mail) => mail.subject?.includes(order.code)).map((mail) => mail.subject);
  expect(subjects()).toEqual([]);

  const refunded = await s.t.app.inject({
    method: 'POST',
    url: `/admin/orders/${order.code}/refund`,
    headers: { authorization: `Bearer ${key}` },
    payload: {},
  });
  expect(refunded.statusCode, refunded.body).toBe(200);
  expect(await orderStatus(s.t.database.db, order.id)).toBe('CANCELLED');
  await s.t.jobs.worker.drain({ includeDelayed: true });

  const cancelled = /is cancelled|on tühistatud/;
  await smtp.waitFor((mail) => mail.subject?.includes(order.code) === true && cancelled.test(mail.subject));
  expect(subjects()).toEqual([expect.stringMatching(cancelled)]);
});
