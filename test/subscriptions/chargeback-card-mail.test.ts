import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import {
  activeShelfSubscriber,
  chargesOf,
  mailJobs,
  mailsReceivedBy,
  saveCard,
  setMailLanguage,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';

// A chargeback retires the card its charge was made with (billing.apply.ts): the subscription keeps its period and
// renews with the customer's other saved card, or with none, and its renewal then failed without a word beforehand:
// the customer first heard of it as a failed renewal. The transaction that retires the card now queues a mail to each
// subscription that renewed with it, saying why and what to do (save a new card before the period's end), once
// however often the callback comes, also twice at once.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());

async function chargedBackSubscriber() {
  const subscriber = await activeShelfSubscriber(s);
  await setMailLanguage(s, subscriber.customer, 'en');
  await s.everypay.callbacksIdle();
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  return { ...subscriber, charge, lastFour: s.everypay.cards().at(-1)!.lastFour };
}

describe('a chargeback that retires the card a subscription renews with', () => {
  it('mails it once, even for the callback twice at once, asking for a new card before the period ends', async () => {
    const { customer, id, charge, lastFour } = await chargedBackSubscriber();
    await s.t.drainJobs();
    const since = s.smtp.mails.length;
    const sent = await withTableHeld(s.t.database.db, 'subscription_charge', () =>
      s.everypay.setState(charge.reference!, 'chargebacked', { times: 2 }),
    );
    expect(answers(sent)).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', card_id: null });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'cardRetired']);

    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails.map((mail) => mail.subject)).toEqual([`We no longer charge your card ending in ${lastFour} for Shelf of 5`]);
    expect(mails[0]!.text).toContain('save a new card in your account before then');
  });

  it('renewing with another saved card: the mail names it', async () => {
    const { customer, id, charge } = await chargedBackSubscriber();
    await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    const other = s.everypay.cards().at(-1)!.lastFour;
    await s.t.drainJobs();
    const since = s.smtp.mails.length;
    await s.everypay.setState(charge.reference!, 'chargebacked');
    expect(Number((await subscriptionRow(s, id)).card_id)).toBeGreaterThan(0);
    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`renewed with your saved card ending in ${other}`);
  });

  it('the other saved card expired (not pruned yet): asked for a new card, not told the expired one renews it', async () => {
    const { customer, charge } = await chargedBackSubscriber();
    const other = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    await s.t.database.db.updateTable('subscription_card').set({ expiry_year: 2000 }).where('id', '=', other).execute();
    await s.t.drainJobs();
    const since = s.smtp.mails.length;
    await s.everypay.setState(charge.reference!, 'chargebacked');
    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).not.toContain('renewed with your saved card');
    expect(mails[0]!.text).toContain('save a new card in your account before then');
  });
});
