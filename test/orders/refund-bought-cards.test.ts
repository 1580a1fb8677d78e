import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { until } from '../helpers/lock-waits.js';
import { balance, card, ledger } from '../gift-cards/helpers.js';
import {
  mailEuros as euros,
  orderMails,
  paidVirtualCard,
  REFUND_PATH,
  refundsAsked,
  spendCard,
  startRefundShop,
  type RefundShop,
} from './refund-helpers.js';

// Refunding an order that bought a virtual gift card whose buyer (or recipient) already spent part of
// it: what was spent is never paid back. A refund gives back at most what was paid less that (409
// past it, sent nowhere), the unspent value it gives back is taken off the card first (so it cannot
// be spent as well), the answer's X-Refund-Held-Back names what was held back, and the refund of all
// that can be given back cancels the order. The buyer's mails say what came off the card and what
// was held back.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterEach(async () => {
  s.everypay.breakApi(null);
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;
const REFUND_SUBJECT = 'Tagasimakse teie tellimuse';
const cancelledSubject = (code: string) => `Teie tellimus ${code} on tühistatud`;
const TAKEN_OFF = (cents: number) =>
  new RegExp(`${euros(cents).source} sellest on see, mis oli alles selle tellimusega ostetud kinkekaartidel`);
const SPENT = (cents: number) => new RegExp(`Selle tellimusega ostetud kinkekaartidelt kasutatud ${euros(cents).source} ei tagastata.`);

/** The buyer's mails of the order once its jobs ran: the refund mails and the cancellation mail. */
async function mailsOf(code: string, refunds: number, cancelled: number) {
  await s.everypay.callbacksIdle();
  await s.t.drainJobs();
  await s.smtp.waitFor(
    () => orderMails(s, code, REFUND_SUBJECT).length === refunds && orderMails(s, code, cancelledSubject(code)).length === cancelled,
  );
  return { refunds: orderMails(s, code, REFUND_SUBJECT), cancelled: orderMails(s, code, cancelledSubject(code)) };
}
const orderStatus = async (orderId: number) =>
  (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;

describe('POST /admin/orders/{code}/refund of an order whose gift card was partly spent', () => {
  it('refunds all but the spent 20.00 of a 25.00 card, voids the 5.00 left, cancels the order; more is a 409', async () => {
    const bought = await paidVirtualCard(s, 25);
    expect(bought.totalCents).toBe(5090);
    await spendCard(s, bought.cardCode, 20);
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(500);

    const tooMuch = await s.refund(bought.code, { amount: 30.91 });
    const refused = expectErrorBody(tooMuch, 409, 'Conflict');
    expect(refused.message).toContain('30.90');
    expect(refused.message).toContain('20.00');
    expect(refundsAsked(s, bought.reference)).toEqual([]);
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(500);

    const whole = await s.refund(bought.code, {});
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.headers['x-refund-held-back']).toBe('20.00');
    expect(whole.json()).toMatchObject({ status: 'CANCELLED', payment: { state: 'refunded', amount: 50.9, refunded: 30.9 } });
    expect(refundsAsked(s, bought.reference)).toEqual([3090]);
    expect(s.everypay.payment(bought.reference)).toMatchObject({ standingCents: 2000 });
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 0, entrySumCents: 0 });
    expect((await balance(s.t, bought.cardCode)).json()).toMatchObject({ balance: 0 });
    await s.everypay.callbacksIdle();
    expect(await orderStatus(bought.orderId)).toBe('CANCELLED');
    const { cancelled } = await mailsOf(bought.code, 0, 1);
    expect(cancelled[0]!.text).toContain(`Teie tellimus ${bought.code} on tühistatud ja selle eest makstu on tagastatud, välja arvatud`);
    expect(cancelled[0]!.text).toMatch(new RegExp(`${euros(3090).source} läheb tagasi`));
    expect(cancelled[0]!.text).toMatch(TAKEN_OFF(500));
    expect(cancelled[0]!.text).toMatch(SPENT(2000));

    // The same again (a double click) answers the refund made; any more is a 409. Nothing more is sent.
    const again = await s.refund(bought.code, {});
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ status: 'CANCELLED', payment: { refunded: 30.9 } });
    expect((await s.refund(bought.code, { amount: 0.01 })).statusCode).toBe(409);
    expect(refundsAsked(s, bought.reference)).toEqual([3090]);
  });

  it('an order its gift cards paid alone is refunded whole or not at all: with its card spent from, a 409 and nothing moves', async () => {
    const paying = await card(s.t, 100);
    const bought = await paidVirtualCard(s, 25, paying);
    const paidFrom = (await ledger(db(), paying)).balanceCents;
    await spendCard(s, bought.cardCode, 20);
    const refused = expectErrorBody(await s.refund(bought.code, {}), 409, 'Conflict');
    expect(refused.message).toContain('20.00');
    expect((await ledger(db(), paying)).balanceCents).toBe(paidFrom);
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(500);
    expect(await orderStatus(bought.orderId)).not.toBe('CANCELLED');
  });

  it('part refunds: the other things first, past them the sum comes off the card before it is refunded', async () => {
    const bought = await paidVirtualCard(s, 25);
    await spendCard(s, bought.cardCode, 20);
    // 10.00 of the book and the courier (25.90 in all): the card keeps its 5.00.
    const first = await s.refund(bought.code, { amount: 10 });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['x-refund-held-back']).toBe('20.00');
    expect(first.json()).toMatchObject({ status: 'PENDING_NAV_PROCESSING', payment: { refunded: 10 } });
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(500);
    // 17.00: the 15.90 left of them and 1.10 of the card, taken off it.
    const second = await s.refund(bought.code, { amount: 17 });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ status: 'PENDING_NAV_PROCESSING', payment: { refunded: 27 } });
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(390);
    // The 3.90 left on the card can go back once; past it a 409.
    expectErrorBody(await s.refund(bought.code, { amount: 3.91 }), 409, 'Conflict');
    const rest = await s.refund(bought.code, {});
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ status: 'CANCELLED', payment: { refunded: 30.9 } });
    expect(refundsAsked(s, bought.reference)).toEqual([1000, 1700, 390]);
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(0);
    // The part refunds' mails: the first took nothing off the card, the second 1.10; the last refund
    // cancelled the order, and its mail says what came off the card in all and what was held back.
    const mails = await mailsOf(bought.code, 2, 1);
    expect(mails.refunds[0]!.text).not.toContain('kinkekaartidel');
    expect(mails.refunds[1]!.text).toMatch(new RegExp(`${euros(1700).source} läheb tagasi`));
    expect(mails.refunds[1]!.text).toMatch(TAKEN_OFF(110));
    expect(mails.cancelled[0]!.text).toMatch(TAKEN_OFF(500));
    expect(mails.cancelled[0]!.text).toMatch(SPENT(2000));
  });

  it("refunds made in EveryPay's portal follow the same rule: past the other things, the rest comes off the card, once though the callback comes twice", async () => {
    const bought = await paidVirtualCard(s, 25);
    await spendCard(s, bought.cardCode, 20);
    // 10.00 of the book and the courier (25.90): the card keeps its 5.00.
    await s.everypay.refund(bought.reference, 1000, { times: 2 });
    await s.everypay.callbacksIdle();
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(500);
    // 18.90 more: the 15.90 left of them and 3.00 of the card, taken off it.
    await s.everypay.refund(bought.reference, 1890, { times: 2 });
    await s.everypay.callbacksIdle();
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 200, entrySumCents: 200 });
    expect((await balance(s.t, bought.cardCode)).json()).toMatchObject({ balance: 2 });
    expect(await orderStatus(bought.orderId)).toBe('PENDING_NAV_PROCESSING');
    // The shop's own refund of what is left takes the last 2.00 off before EveryPay is asked, and
    // its callback takes nothing more. All that could be given back: the order is off.
    const rest = await s.refund(bought.code, {});
    expect(rest.statusCode, rest.body).toBe(200);
    expect(refundsAsked(s, bought.reference)).toEqual([200]);
    await s.everypay.notify(bought.reference, { times: 2 });
    const mails = await mailsOf(bought.code, 2, 1);
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 0, entrySumCents: 0 });
    expect(await orderStatus(bought.orderId)).toBe('CANCELLED');
    expect(mails.refunds[0]!.text).not.toContain('kinkekaartidel');
    expect(mails.refunds[1]!.text).toMatch(TAKEN_OFF(300));
    expect(mails.cancelled[0]!.text).toMatch(TAKEN_OFF(500));
    expect(mails.cancelled[0]!.text).toMatch(SPENT(2000));
  });

  it("a portal refund while the shop's own is at EveryPay: each takes its own share off the card, none twice", async () => {
    const bought = await paidVirtualCard(s, 25);
    await spendCard(s, bought.cardCode, 20);
    // The shop's 27.00 (the 25.90 of the other things and 1.10 of the card) is made at EveryPay at
    // once, and its callback applied, but the answer to the shop's call comes only after a refund of
    // the card's last 3.90 made in the portal has been called back and applied too.
    let answer!: () => void;
    s.everypay.answerLate(REFUND_PATH, new Promise<void>((resolve) => (answer = resolve)));
    const own = s.refund(bought.code, { amount: 27 });
    await until('the shop refund at EveryPay', () => refundsAsked(s, bought.reference).length === 1);
    await s.everypay.callbacksIdle();
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(390);
    await s.everypay.refund(bought.reference, 390, { times: 2 });
    await s.everypay.callbacksIdle();
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(0);
    answer();
    const done = await own;
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'CANCELLED', payment: { refunded: 30.9 } });
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 0, entrySumCents: 0 });
    const mails = await mailsOf(bought.code, 1, 1);
    expect(mails.refunds[0]!.text).toMatch(TAKEN_OFF(110));
    expect(mails.cancelled[0]!.text).toMatch(TAKEN_OFF(500));
  });

  it('a refund EveryPay refuses gives back to the card what was taken off it for the refund', async () => {
    const bought = await paidVirtualCard(s, 25);
    await spendCard(s, bought.cardCode, 20);
    s.everypay.breakApi({ status: 422, body: '{"error":{"code":4999,"message":"Refunds are off"}}' }, 1, REFUND_PATH);
    expectErrorBody(await s.refund(bought.code, {}), 409, 'Conflict');
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 500, entrySumCents: 500 });
    expect(await orderStatus(bought.orderId)).toBe('PENDING_NAV_PROCESSING');
    const whole = await s.refund(bought.code, {});
    expect(whole.statusCode, whole.body).toBe(200);
    expect(s.everypay.payment(bought.reference)).toMatchObject({ standingCents: 2000 });
    expect((await ledger(db(), bought.cardCode)).balanceCents).toBe(0);
  });
});
