import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeShelfSubscriber,
  bill,
  callbackUrlOf,
  chargesOf,
  mailMoney,
  mailsReceivedBy,
  MIT_PATH,
  releaseHeldCallbacks,
  resetGateway,
  setMailLanguage,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// A charge the shop owed back (refund_due, refund_refused), or a renewal not yet settled, that the cardholder's
// bank took back on their dispute (EveryPay's `chargebacked`): the customer was mailed the refunder's words, "your
// payment was refunded to your card, as it was not needed" (a renewal: "refunded ... we will try to charge your saved
// card again", of the card the chargeback retires), though the shop refunded nothing. They are now told what
// happened, in their language: their bank returned it, and the shop neither refunds it nor charges it again.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(() => resetGateway(s));

const SAYS = {
  en: { bank: 'Your bank returned your payment', shopRefund: 'was refunded to your card', retry: 'again in the coming days' },
  et: { bank: 'Teie pank tagastas teile teie makse', shopRefund: 'on kaardile tagastatud', retry: 'lähipäevil uuesti' },
  ru: { bank: 'Ваш банк вернул вам платёж', shopRefund: 'возвращён на карту', retry: 'в ближайшие дни' },
} as const;
const LANGUAGES = ['en', 'et', 'ru'] as const;
/** How many mails were sent so far (the refund job left queued: it would refund the payment before the chargeback). */
const mailsSoFar = () => s.smtp.mails.length;

describe('a charge the shop owed back, charged back', () => {
  it.each(LANGUAGES)('is mailed as returned by the bank, not refunded by the shop (%s)', async (language) => {
    const { customer, id, reference } = await settledForNothing(s);
    await setMailLanguage(s, customer, language);
    const amount = (await chargesOf(s, id)).at(-1)!.amount_cents;
    const since = mailsSoFar();

    s.everypay.holdCallbacks();
    const sent = s.everypay.setState(reference, 'chargebacked');
    // The refund job looks the payment up before the callback comes (the refunder's path), the callback after it.
    await s.t.drainJobs();
    await sent;
    await releaseHeldCallbacks(s);
    expect((await chargesOf(s, id)).at(-1)!.state).toBe('refunded');

    // Sent since: the mails queued before (the decline, the cancel) and this one.
    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails.filter((mail) => (mail.text ?? '').includes(SAYS[language].shopRefund))).toEqual([]);
    const told = mails.filter((mail) => (mail.text ?? '').includes(SAYS[language].bank));
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toContain(mailMoney(amount, language));
    expect(told[0]!.subject).toContain(mailMoney(amount, language));
  });

  it('charged back with no refunder before it: the same mail, once', async () => {
    const { customer, reference } = await settledForNothing(s);
    await setMailLanguage(s, customer, 'en');
    const since = mailsSoFar();
    await s.everypay.setState(reference, 'chargebacked', { times: 2 });
    const texts = (await mailsReceivedBy(s, customer, since)).map((mail) => mail.text ?? '');
    expect(texts.filter((text) => text.includes(SAYS.en.bank))).toHaveLength(1);
    expect(texts.filter((text) => text.includes(SAYS.en.shopRefund))).toEqual([]);
  });
});

describe('a renewal charged back before the shop heard it settled', () => {
  it.each(LANGUAGES)('is mailed as returned by the bank, with no promise to charge the saved card again (%s)', async (language) => {
    const subscriber = await activeShelfSubscriber(s);
    await setMailLanguage(s, subscriber.customer, language);
    const due = Date.now() - 15 * 60_000;
    await s.t.database.db.updateTable('subscription').set({ period_end: due }).where('id', '=', subscriber.id).execute();
    s.everypay.setCallbackUrl(null);
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    expect(await bill(s, due)).toMatchObject({ pending: 1 });
    s.everypay.breakApi(null);
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    const payment = s.everypay.paymentsFor(`SUB${subscriber.id}-2P1`)[0]!;
    const since = mailsSoFar();

    await s.everypay.setState(payment.reference, 'chargebacked');
    expect(await subscriptionRow(s, subscriber.id)).toMatchObject({ status: 'FAILED', card_id: null });

    const mails = await mailsReceivedBy(s, subscriber.customer, since);
    const texts = mails.map((mail) => mail.text ?? '');
    expect(texts.filter((text) => text.includes(SAYS[language].bank))).toHaveLength(1);
    expect(texts.join('\n')).not.toContain(SAYS[language].shopRefund);
    expect(texts.join('\n')).not.toContain(SAYS[language].retry);
  });
});
