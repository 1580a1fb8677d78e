import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { localTime } from '../../src/infra/shop-time.js';
import { answers } from '../helpers/everypay-order.js';
import {
  DAY,
  activeShelfSubscriber,
  bill,
  callbackUrlOf,
  mailsReceivedBy,
  mitPayments,
  MIT_PATH,
  resetGateway,
  saveCard,
  setMailLanguage,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';

// The subscription mails are rendered when sent, from the subscription as it is then, and a mail naming the card a
// renewal is charged to names one that has not expired by then (subscriptions.mails.ts). The mail job judged that
// by Date.now(), where the chargeback that chose the card, and the billing run that charges it, read the app's
// clock (architecture.md: services never call Date.now(); the gift-card and pickup jobs were moved to it before).
// In production both are the system's time; under a test's clock a year back, the other saved card valid for the
// retry was expired "now": the mail said no saved card could be charged and asked for a new one, while the retry
// charged that card.

const clock = fixedClock(Date.now());
let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop({}, { clock });
});
afterAll(() => s.close());
afterEach(() => resetGateway(s));

const OTHER_LAST_FOUR = '4242';

describe('a renewal charged back under a clock a year back', () => {
  it('its mail names the other saved card, valid on the retry day by that clock, which the retry charges', async () => {
    clock.set(Date.now());
    const subscriber = await activeShelfSubscriber(s);
    await setMailLanguage(s, subscriber.customer, 'en');
    // Over a year back: what the app queues by this clock is due for the job worker at once.
    const due = Date.now() - 400 * DAY;
    const retryAt = due + DAY;
    // The other card expires in the retry's month: valid for the retry, long expired by the system's time.
    const id = await saveCard(s, subscriber.customer);
    await s.everypay.callbacksIdle();
    const otherToken = s.everypay.cards().at(-1)!.token;
    const expiry = new Date(retryAt);
    await s.t.database.db
      .updateTable('subscription_card')
      .set({ last_four: OTHER_LAST_FOUR, expiry_year: expiry.getUTCFullYear(), expiry_month: expiry.getUTCMonth() + 1 })
      .where('id', '=', id)
      .execute();

    clock.set(due);
    await s.t.database.db
      .updateTable('subscription')
      .set({ period_start: due - 30 * DAY, period_end: due })
      .where('id', '=', subscriber.id)
      .execute();
    s.everypay.setCallbackUrl(null);
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    expect(await bill(s, due)).toMatchObject({ pending: 1 });
    s.everypay.breakApi(null);
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    await s.t.drainJobs();
    const payment = s.everypay.paymentsFor(`SUB${subscriber.id}-2P1`)[0]!;

    clock.set(due + 60_000);
    const since = s.smtp.mails.length;
    expect(answers(await s.everypay.setState(payment.reference, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, subscriber.id)).toMatchObject({ status: 'FAILED', card_id: id, next_attempt_at: retryAt });
    const mails = await mailsReceivedBy(s, subscriber.customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`your saved card ending in ${OTHER_LAST_FOUR} on ${localTime(retryAt).date}`);

    // What the mail said: the retry charges that card.
    clock.set(retryAt);
    await bill(s, retryAt);
    expect(String((mitPayments(s, subscriber.id).at(-1)!.body as Record<string, unknown>).token)).toBe(otherToken);
  });
});
