import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answers, CALLBACK_ORDERS, inOrder } from '../helpers/everypay-order.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import {
  DAY,
  MIT_PATH,
  bill,
  chargesOf,
  createCustomer,
  mailJobs,
  mailsReceivedBy,
  mitPayments,
  releaseHeldCallbacks,
  saveCard,
  setMailLanguage,
  startMailingShop,
  subscribe,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';

// A renewal whose every retry EveryPay declined lapses: the subscription is LAPSED and gives nothing
// more. Only its first decline was mailed (billingFailed), so the subscriber learned that access had
// ended from a download refused. The lapse is mailed once, by the transaction that lapses it: a
// billing run and the charge's callback applying the last retry's decline, in either order, twice, or
// at once, change the subscription once and mail it once.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
// A test that fails while callbacks are held must not leave the next tests without them.
afterEach(() => releaseHeldCallbacks(s));

/**
 * A SHELF5 subscriber whose renewal and its first two retries were declined: FAILED, its last retry
 * due now (`lastRetryAt`, 7 days after the period's end), so that what the runs queue is due now too.
 */
async function lastRetryDue() {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  const token = s.everypay.cards().at(-1)!.token;
  s.everypay.setCardOutcome(token, 'settled');
  const made = await subscribe(s, customer, 'SHELF5');
  expect(made.json()).toMatchObject({ status: 'ACTIVE' });
  const id = made.json().id as number;
  const end = Date.now() - 7 * DAY - 1000;
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: end - 30 * DAY, period_end: end })
    .where('id', '=', id)
    .execute();
  s.everypay.setCardOutcome(token, 'failed');
  for (const at of [end + 1000, end + DAY, end + 3 * DAY]) await bill(s, at);
  await s.everypay.callbacksIdle();
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 3, next_attempt_at: end + 7 * DAY });
  return { customer, id, lastRetryAt: end + 7 * DAY };
}

const lapsedMails = async (id: number) => (await mailJobs(s, id)).filter((kind) => kind === 'lapsed');

describe('a subscription whose last retry is declined', () => {
  it("is mailed once that it has ended, in the subscriber's language, and how to subscribe again", async () => {
    const { customer, id, lastRetryAt } = await lastRetryDue();
    await setMailLanguage(s, customer, 'en');
    expect(await bill(s, lastRetryAt)).toMatchObject({ failed: 1 });
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'LAPSED', failed_attempts: 4 });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed', 'lapsed']);
    const mails = await mailsReceivedBy(s, customer);
    // The worker sends its mails at once: they may arrive in any order.
    expect(mails.map((mail) => mail.subject).sort()).toEqual([
      'We could not renew your subscription Shelf of 5',
      'Your subscription Shelf of 5 has ended',
      'Your subscription Shelf of 5 has started',
    ]);
    const lapsed = mails.find((mail) => mail.subject?.endsWith('has ended'))!;
    expect(lapsed.text).toMatch(/^Hello /);
    expect(lapsed.text).toContain('so your subscription has ended and nothing more will be charged');
    expect(lapsed.text).toContain('To subscribe again, save a card that works and choose a plan');
    expect(lapsed.html).toContain('To subscribe again, save a card that works');
    // Later runs find nothing to charge and nothing to tell.
    await bill(s, lastRetryAt + 30 * DAY);
    expect(mitPayments(s, id)).toHaveLength(5);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed', 'lapsed']);
    expect(await mailsReceivedBy(s, customer)).toHaveLength(3);
  });

  it.each([
    ['et', 'Teie tellimus Riiul 5 on lõppenud'],
    ['ru', 'Ваша подписка Riiul 5 закончилась'],
  ] as const)('is written in %s for a subscriber of that language', async (language, subject) => {
    const { customer, lastRetryAt } = await lastRetryDue();
    await setMailLanguage(s, customer, language);
    await bill(s, lastRetryAt);
    expect((await mailsReceivedBy(s, customer)).map((mail) => mail.subject)).toContain(subject);
  });

  it('two billing runs at once: the retry charged once, one lapsed mail', async () => {
    const { id, lastRetryAt } = await lastRetryDue();
    const reports = await Promise.all([bill(s, lastRetryAt), bill(s, lastRetryAt)]);
    expect(reports.reduce((sum, report) => sum + report.failed, 0)).toBe(1);
    await s.everypay.callbacksIdle();
    expect(mitPayments(s, id)).toHaveLength(5); // the first month, the renewal and its 3 retries
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'LAPSED', failed_attempts: 4 });
    expect(await lapsedMails(id)).toEqual(['lapsed']);
  });
});

describe.each(CALLBACK_ORDERS)('the last retry declined, %s', (order) => {
  it('LAPSED and one lapsed mail; the same callback again changes nothing', async () => {
    const { id, lastRetryAt } = await lastRetryDue();
    const { result: report, sent } = await inOrder(s.everypay, order, MIT_PATH, () => bill(s, lastRetryAt));
    expect(report).toMatchObject({ charged: 0, failed: 1, pending: 0 });
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'LAPSED', failed_attempts: 4 });
    const reference = (await chargesOf(s, id)).at(-1)!.reference!;
    const again = [...(await s.everypay.notify(reference)), ...(await s.everypay.notify(reference, { times: 2 }))];
    expect(answers(again)).toEqual(Array(3).fill([200, { outcome: 'applied' }]));
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed', 'lapsed']);
  });
});

// PostgreSQL: the callback has finished the charge and waits for the subscription (held here) while the
// billing run's answer waits for the charge, so both apply the decline at once. SQLite writes one
// transaction at a time: the callback is applied first, then the answer, and the same must come out.
describe("the last retry's answer applied while its callback holds the charge", () => {
  it('lapses the subscription once and mails it once', async () => {
    const { id, lastRetryAt } = await lastRetryDue();
    const db = s.t.database.db;
    s.everypay.holdCallbacks();
    let answer!: () => void;
    s.everypay.answerLate(MIT_PATH, new Promise<void>((resolve) => (answer = resolve)));
    const run = bill(s, lastRetryAt);
    await until('the run to charge the card', () => mitPayments(s, id).length === 5);
    const hold = async (during: () => Promise<void>) => {
      if (engine !== 'postgres') return during();
      await db.transaction().execute(async (trx) => {
        await trx.selectFrom('subscription').select('id').where('id', '=', id).forUpdate().execute();
        await during();
      });
    };
    await hold(async () => {
      const callbacks = s.everypay.releaseCallbacks();
      if (engine === 'postgres') await until('the callback to wait for the subscription', async () => (await lockWaiters(db)) >= 1);
      else await callbacks;
      answer();
      if (engine === 'postgres') await until('the answer to wait for the charge', async () => (await lockWaiters(db)) >= 2);
    });
    await run;
    await s.everypay.callbacksIdle();
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'LAPSED', failed_attempts: 4 });
    expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['settled', 'failed', 'failed', 'failed', 'failed']);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'billingFailed', 'lapsed']);
  });
});
