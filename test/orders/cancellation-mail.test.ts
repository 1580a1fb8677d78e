import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { settleEveryPay, sweepDepsOf } from './everypay-helpers.js';
import { age, cardPayment, orderJobs, orderStatus } from './processing-helpers.js';
import { paidBook, startRefundShop, type RefundShop } from './refund-helpers.js';

// The buyer hears of their order's cancellation: a paid order cancelled once its money went back (the
// operator's full refund, or one made at EveryPay and learnt from its callback), an unpaid one given up
// by the sweep. The mail is queued with the cancellation (the outbox), so a refund or a callback sent
// again mails nobody twice; a cancelled order that a late payment revived before the mail went out
// gets no cancellation mail.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterEach(() => settleEveryPay(s));
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

const CANCELLED_SUBJECT = 'on tühistatud';

/** The cancellation mails about order `code` the SMTP server has accepted. */
const cancellationMails = (code: string) =>
  s.smtp.mails.filter((mail) => mail.subject?.includes(code) === true && mail.subject.includes(CANCELLED_SUBJECT));

/** What became of the cancellation mail jobs of an order: their results ('sent', 'skipped'). */
const cancellationJobResults = async (orderId: number) => (await orderJobs(db(), 'order.cancelled-mail', orderId)).map((job) => job.result);

const waitForCancellation = (code: string): Promise<ParsedMail> =>
  s.smtp.waitFor((mail) => mail.subject?.includes(code) === true && mail.subject.includes(CANCELLED_SUBJECT));

describe("the buyer's mail when an order is cancelled", () => {
  it('a paid order refunded in full: one mail to the buyer saying what went back, whether the refund and its callback came once or twice', async () => {
    const order = await paidBook(s, 20);
    const refund = await s.refund(order.code, {});
    expect(refund.statusCode, refund.body).toBe(200);
    // A double click on the operator's side answers the refund made.
    const again = await s.refund(order.code, {});
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(refund.json());
    await s.everypay.callbacksIdle();
    // EveryPay's callback of the refund, delivered again, twice at once.
    await s.everypay.notify(order.reference, { times: 2 });
    await s.everypay.callbacksIdle();
    expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
    await s.t.drainJobs();

    const mail = await waitForCancellation(order.code);
    expect(JSON.stringify(mail.to)).toContain('mari@example.ee');
    expect(mail.subject).toBe(`Teie tellimus ${order.code} on tühistatud – ${mail.subject!.split(' – ')[1]}`);
    expect(mail.text).toContain('Tere, Mari Maasikas!');
    expect(mail.text).toContain(`Teie tellimus ${order.code} on tühistatud ja selle eest makstu on tagastatud.`);
    // What EveryPay gave back: the whole sum paid (the book and the courier).
    const euros = (order.totalCents / 100).toFixed(2).replace('.', ',');
    expect(mail.text).toMatch(new RegExp(`${euros}\\s?€ läheb tagasi kaardile või pangakontole`));
    expect(mail.text).not.toContain('kinkekaartidel');
    expect(mail.text).toContain(`Teie tellimuse kood on ${order.code}`);
    expect(mail.html).toContain('tagastatud');

    await s.t.drainJobs();
    expect(cancellationMails(order.code)).toHaveLength(1);
    expect(await cancellationJobResults(order.orderId)).toEqual(['sent']);
  });

  it('a part refund cancels nothing and mails nothing', async () => {
    const order = await paidBook(s, 20);
    expect((await s.refund(order.code, { amount: 5 })).statusCode).toBe(200);
    await s.everypay.callbacksIdle();
    await s.t.drainJobs();
    expect(await orderStatus(db(), order.orderId)).not.toBe('CANCELLED');
    expect(await cancellationJobResults(order.orderId)).toEqual([]);
  });

  it('an unpaid order the sweep gives up: the mail says it was not paid and nothing was charged', async () => {
    const order = await cardPayment(s, { stock: 3, quantity: 1 });
    await age(db(), order.id, 45);
    const swept = await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(swept).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
    await s.t.drainJobs();

    const mail = await waitForCancellation(order.code);
    expect(mail.text).toContain(`Teie tellimus ${order.code} on tühistatud, sest seda ei makstud õigel ajal.`);
    expect(mail.text).not.toContain('tagastatud');
    expect(await cancellationJobResults(order.id)).toEqual(['sent']);
  });

  it('an unpaid order given up, then paid after all before the mail went out: no cancellation mail', async () => {
    const order = await cardPayment(s, { stock: 3, quantity: 1 });
    await age(db(), order.id, 45);
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(await orderStatus(db(), order.id)).toBe('CANCELLED');
    // The shopper paid on EveryPay's page at the last moment; its callback revives the order.
    await s.everypay.shopper(order.reference, 'pay');
    await s.everypay.callbacksIdle();
    expect(await orderStatus(db(), order.id)).toBe('PENDING_PROCESSING');
    await s.t.drainJobs();

    expect(await cancellationJobResults(order.id)).toEqual(['skipped']);
    expect(cancellationMails(order.code)).toEqual([]);
  });
});
