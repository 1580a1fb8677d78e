import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settleEveryPay } from './everypay-helpers.js';
import { orderJobs, orderStatus } from './processing-helpers.js';
import { mailEuros as euros, paidBook, startRefundShop, type RefundShop } from './refund-helpers.js';

// The buyer hears of a refund that leaves their order standing: a part refund, the operator's or one
// made at EveryPay and learnt from its callback. The mail is queued where the refunded sum is applied
// (the outbox, under the callback inbox), so a refund double-clicked or a callback delivered again mails
// once; a refund that cancels the order is told by the cancellation mail alone.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterEach(() => settleEveryPay(s));
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

const REFUND_SUBJECT = 'Tagasimakse teie tellimuse';

const refundMails = (code: string) =>
  s.smtp.mails.filter((mail) => mail.subject?.includes(code) === true && mail.subject.startsWith(REFUND_SUBJECT));

/** The refund mail jobs of an order: what each said it gave back, and what became of it. */
const refundJobs = async (orderId: number) =>
  (await orderJobs<{ refundedCents: number }>(db(), 'order.refunded-mail', orderId)).map((job) => [job.payload.refundedCents, job.result]);

describe("the buyer's mail when part of an order is refunded", () => {
  it("the operator's part refund, double-clicked, its callback delivered twice at once: one mail; a second part refund mails again with the sum so far", async () => {
    const order = await paidBook(s, 20);
    const first = await s.refund(order.code, { amount: 5 });
    expect(first.statusCode, first.body).toBe(200);
    expect((await s.refund(order.code, { amount: 5 })).json()).toEqual(first.json());
    await s.everypay.callbacksIdle();
    await s.everypay.notify(order.reference, { times: 2 });
    await s.everypay.callbacksIdle();
    await s.t.drainJobs();

    const mail = await s.smtp.waitFor((m) => m.subject?.startsWith(REFUND_SUBJECT) === true && m.subject.includes(order.code));
    expect(JSON.stringify(mail.to)).toContain('mari@example.ee');
    expect(mail.subject).toMatch(new RegExp(`^Tagasimakse teie tellimuse ${order.code} eest – .+`));
    expect(mail.text).toContain('Tere, Mari Maasikas!');
    expect(mail.text).toContain(`Tagastasime osa teie tellimuse ${order.code} eest makstust.`);
    expect(mail.text).toMatch(new RegExp(`${euros(500).source} läheb tagasi kaardile või pangakontole`));
    expect(mail.text).not.toContain('Kokku');
    expect(mail.text).toContain(`Teie tellimuse kood on ${order.code}`);
    expect(mail.html).toContain('Tagastasime osa');
    expect(refundMails(order.code)).toHaveLength(1);
    expect(await refundJobs(order.orderId)).toEqual([[500, 'sent']]);

    expect((await s.refund(order.code, { amount: 3 })).statusCode).toBe(200);
    await s.everypay.callbacksIdle();
    await s.t.drainJobs();
    await s.smtp.waitFor(() => refundMails(order.code).length === 2);
    const second = refundMails(order.code)[1]!;
    expect(second.text).toMatch(new RegExp(`${euros(300).source} läheb tagasi`));
    expect(second.text).toMatch(
      new RegExp(`Kokku oleme nüüd tagastanud ${euros(800).source} makstud ${euros(order.totalCents).source} summast.`),
    );
    expect(await refundJobs(order.orderId)).toEqual([
      [500, 'sent'],
      [300, 'sent'],
    ]);
    expect(await orderStatus(db(), order.orderId)).not.toBe('CANCELLED');
  });

  it('a part refund made at EveryPay, learnt from its callback (delivered twice): one mail', async () => {
    const order = await paidBook(s, 20);
    await s.everypay.refund(order.reference, 700, { times: 2 });
    await s.everypay.callbacksIdle();
    await s.t.drainJobs();
    const mail = await s.smtp.waitFor((m) => m.subject?.startsWith(REFUND_SUBJECT) === true && m.subject.includes(order.code));
    expect(mail.text).toMatch(new RegExp(`${euros(700).source} läheb tagasi`));
    expect(refundMails(order.code)).toHaveLength(1);
    expect(await refundJobs(order.orderId)).toEqual([[700, 'sent']]);
  });

  it('a full refund cancels the order: the cancellation mail tells it, no refund mail', async () => {
    const order = await paidBook(s, 20);
    expect((await s.refund(order.code, {})).statusCode).toBe(200);
    await s.everypay.callbacksIdle();
    await s.t.drainJobs();
    expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
    expect(await refundJobs(order.orderId)).toEqual([]);
    expect(refundMails(order.code)).toEqual([]);
  });
});
