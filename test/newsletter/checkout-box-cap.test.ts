import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailsTo, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';
import { setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { placeOrder } from '../orders/purchase-helpers.js';
import { subscribe } from './helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// NEWSLETTER_RATE_LIMIT_PER_EMAIL caps the confirmation mails one inbox can be sent. The form answers
// 429 past it; checkout's "subscribe me" box asks for the same mail with the order's billing email,
// which any guest types, and an order must not fail for it: past the cap its mail is not sent.

const PER_EMAIL = 3;
const SUBJECT = /newsletter|uudiskirja|рассылку/i;

let t: AccountsTestApp;
let shop: Shop;
let book: number;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_EMAIL: `${PER_EMAIL}/1h`, CHECKOUT_RATE_LIMIT_PER_IP: '1000/1m' } });
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 100);
});
afterAll(() => t.close());

const confirmationMails = (email: string) => mailsTo(t, email).filter((mail) => SUBJECT.test(mail.subject ?? ''));

/** A guest's order whose "subscribe me" box asks for `email`; asked apart from the last (not a double submit). */
async function orderSubscribing(email: string, ip: string) {
  await pastResubmitWindow(t.database.db);
  await placeOrder(t, shop, { ip }, [[book, 1]], { form: { billingEmail: email, newsletterSubscription: true } });
}

describe("checkout's newsletter box", () => {
  it('mails one address no more confirmations than NEWSLETTER_RATE_LIMIT_PER_EMAIL, and every order is placed', async () => {
    const victim = uniqueEmail('box-victim');
    for (let i = 0; i < PER_EMAIL + 3; i++) await orderSubscribing(victim, `198.51.100.${i + 1}`);
    await t.drainJobs();
    expect(confirmationMails(victim)).toHaveLength(PER_EMAIL);

    // The form, asked within its own limit, sends nothing more to the address either.
    await pastResubmitWindow(t.database.db);
    expect((await subscribe(t, { email: victim, language: 'en' })).statusCode).toBe(200);
    await t.drainJobs();
    expect(confirmationMails(victim)).toHaveLength(PER_EMAIL);

    // Another address is mailed.
    const other = uniqueEmail('box-other');
    await orderSubscribing(other, '198.51.100.99');
    await t.drainJobs();
    await t.smtp.waitFor(() => confirmationMails(other).length === 1, 5000);
  });

  it('counts a confirmation once: a send the mail server failed and the worker retried is not another', async () => {
    const email = uniqueEmail('box-retried');
    t.smtp.failNext(2);
    for (let i = 0; i < PER_EMAIL; i++) await orderSubscribing(email, `198.51.100.${120 + i}`);
    await t.jobs.worker.drain({ includeDelayed: true });
    expect(confirmationMails(email)).toHaveLength(PER_EMAIL);
  });
});
