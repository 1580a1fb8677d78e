import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailTo, register, tokenFromMail, uniqueEmail, verify, type AccountsTestApp } from '../helpers/accounts.js';
import { oneClick, oneClickPath, subscribeConfirmed } from '../newsletter/helpers.js';

// A registration's newsletter tick subscribes the store registered in when its link is followed.
// app_user.newsletter is only "subscribed in some store" now: another store's subscription, made
// through that store's form before the link was followed, is not this store's consent.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

const subscribedStores = async (email: string) =>
  (
    await t.database.db
      .selectFrom('newsletter_subscriber')
      .select('store_code')
      .where('email', '=', email)
      .where('withdrawn_at', 'is', null)
      .orderBy('store_code')
      .execute()
  ).map((row) => row.store_code);

describe('verifying a registration made without the newsletter tick', () => {
  it("does not subscribe the store registered in because another store's newsletter was joined meanwhile", async () => {
    const email = uniqueEmail('verify-no-tick');
    expect((await register(t, email, 'WEB')).statusCode).toBe(200);
    const token = tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
    await subscribeConfirmed(t, email, 'en', 'WEB2');
    const verified = await verify(t, token, 'WEB');
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await subscribedStores(email)).toEqual(['WEB2']);
    // The flag says "subscribed in some store": WEB2's newsletter is this person's.
    const user = await t.database.db.selectFrom('app_user').select('newsletter').where('email', '=', email).executeTakeFirstOrThrow();
    expect(Boolean(user.newsletter)).toBe(true);
  });

  it("keeps the tick when another store's newsletter was left meanwhile", async () => {
    const email = uniqueEmail('verify-tick');
    expect((await register(t, email, 'WEB', { newsletter: true })).statusCode).toBe(200);
    const token = tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
    const web2 = await subscribeConfirmed(t, email, 'en', 'WEB2');
    expect((await oneClick(t, oneClickPath(web2))).statusCode).toBe(200);
    const verified = await verify(t, token, 'WEB');
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await subscribedStores(email)).toEqual(['WEB']);
  });
});
