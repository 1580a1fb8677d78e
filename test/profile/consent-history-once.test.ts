import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changeEmailConfirmed,
  createAccountsTestApp,
  mailTo,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import {
  confirm,
  confirmationMailTo,
  newsletterToken,
  oneClick,
  oneClickPath,
  subscribe,
  subscribeConfirmed,
} from '../newsletter/helpers.js';
import { as } from './helpers.js';

// The email consent's history (marketing_consent_event, written by the newsletter since
// 2026_12_11_1500) has one event per change the person made, in the user whose confirmed login the
// address is: a link followed twice or two requests at once record it once, a switch set to what it
// is records nothing, nor does an email change's move, and a form filled in for someone else's
// address records nothing of the one who filled it in.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

const db = () => t.database.db;

async function userIdOf(email: string): Promise<number> {
  return Number((await db().selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id);
}

async function emailEvents(email: string) {
  const rows = await db()
    .selectFrom('marketing_consent_event')
    .select(['store_code', 'granted', 'source'])
    .where('user_id', '=', await userIdOf(email))
    .where('consent', '=', 'EMAIL')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ store: row.store_code, granted: Boolean(row.granted), source: row.source }));
}

describe('the email consent history, once per change', () => {
  it('records a confirmation link followed twice at once, and an unsubscribe link followed twice at once, once each', async () => {
    const email = uniqueEmail('once-links');
    await registerVerified(t, email);
    expect((await subscribe(t, { email, language: 'en' }, { store: 'WEB2' })).statusCode).toBe(200);
    const mail = await confirmationMailTo(t, email);
    const token = newsletterToken(mail);
    const confirmed = await Promise.all([confirm(t, token), confirm(t, token)]);
    expect(confirmed.map((response) => response.statusCode)).toEqual([200, 200]);
    expect((await confirm(t, token)).statusCode).toBe(200);
    const path = oneClickPath(mail);
    const left = await Promise.all([oneClick(t, path), oneClick(t, path)]);
    expect(left.map((response) => response.statusCode)).toEqual([200, 200]);
    expect((await oneClick(t, path)).statusCode).toBe(200);
    expect(await emailEvents(email)).toEqual([
      { store: 'WEB2', granted: true, source: 'CONFIRMATION_LINK' },
      { store: 'WEB2', granted: false, source: 'UNSUBSCRIBE_LINK' },
    ]);
  });

  it("records two switches at once, and none for the switch's own value, once", async () => {
    const email = uniqueEmail('once-switch');
    const token = await registerVerified(t, email);
    const put = (wanted: boolean) => as(t, token)('PUT', '/client-account', { marketingConsents: { email: wanted } });
    expect((await Promise.all([put(true), put(true)])).map((response) => response.statusCode)).toEqual([200, 200]);
    expect((await put(true)).statusCode).toBe(200);
    expect((await Promise.all([put(false), put(false)])).map((response) => response.statusCode)).toEqual([200, 200]);
    expect((await put(false)).statusCode).toBe(200);
    expect(await emailEvents(email)).toEqual([
      { store: 'WEB', granted: true, source: 'PROFILE' },
      { store: 'WEB', granted: false, source: 'PROFILE' },
    ]);
  });

  it("records nothing for an email change's move, and the next switch in the person's history", async () => {
    const email = uniqueEmail('once-move');
    const token = await registerVerified(t, email);
    expect((await as(t, token)('PUT', '/client-account', { marketingConsents: { email: true } })).statusCode).toBe(200);
    const userId = await userIdOf(email);
    const moved = uniqueEmail('once-moved');
    await changeEmailConfirmed(t, token, moved);
    expect(await userIdOf(moved)).toBe(userId);
    expect(await emailEvents(moved)).toEqual([{ store: 'WEB', granted: true, source: 'PROFILE' }]);
    expect((await as(t, token)('PUT', '/client-account', { marketingConsents: { email: false } })).statusCode).toBe(200);
    expect(await emailEvents(moved)).toEqual([
      { store: 'WEB', granted: true, source: 'PROFILE' },
      { store: 'WEB', granted: false, source: 'PROFILE' },
    ]);
  });

  it("records a form filled in by a logged-in person for another's address in the address's owner alone, once confirmed", async () => {
    const filler = uniqueEmail('once-filler');
    const fillerToken = await registerVerified(t, filler);
    const owner = uniqueEmail('once-owner');
    await registerVerified(t, owner);
    const response = await t.app.inject({
      method: 'POST',
      url: '/newsletter/subscribe',
      headers: { store: 'WEB', authorization: `Bearer ${fillerToken}` },
      payload: { email: owner, language: 'en' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const mail = await confirmationMailTo(t, owner);
    expect(await emailEvents(owner)).toEqual([]);
    expect((await confirm(t, newsletterToken(mail))).statusCode).toBe(200);
    expect(await emailEvents(owner)).toEqual([{ store: 'WEB', granted: true, source: 'CONFIRMATION_LINK' }]);
    expect(await emailEvents(filler)).toEqual([]);
    const exported = await as(t, fillerToken)('GET', '/client-account/export');
    expect(exported.json().profile.consentHistory).toEqual([]);
  });

  it('records no withdrawal for a verification without the tick of a registration that ticked it: nothing was subscribed', async () => {
    const email = uniqueEmail('once-untick');
    expect((await register(t, email, 'WEB', { newsletter: true })).statusCode).toBe(200);
    const verified = await verify(t, tokenFromMail(await mailTo(t, email, /./), 'verificationToken'), 'WEB', { newsletter: false });
    expect(verified.statusCode, verified.body).toBe(200);
    const consent = (await as(t, verified.json().accessToken)('GET', '/client-account')).json().marketingConsents.email;
    expect(consent).toEqual({ granted: false, givenAt: null, withdrawnAt: null });
    expect(await emailEvents(email)).toEqual([]);
  });

  it('records no consent in a store whose business account a person subscribed elsewhere confirms without the tick', async () => {
    const email = uniqueEmail('once-business');
    const access = await registerVerified(t, email, 'WEB');
    expect((await as(t, access)('PUT', '/client-account', { marketingConsents: { email: true } })).statusCode).toBe(200);
    // Anyone may name the person as a company's contact; the link to confirm the account goes to them.
    const form = {
      companyName: 'Teine Pood OÜ',
      registryCode: '12345679',
      address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
      contact: { firstName: 'Mari', lastName: 'Maasikas', email, phone: '+372 5555 5555' },
    };
    t.smtp.mails.length = 0;
    const registered = await t.app.inject({ method: 'POST', url: '/auth/register-business', headers: { store: 'WEB2' }, payload: form });
    expect(registered.statusCode, registered.body).toBe(200);
    const verified = await verify(t, tokenFromMail(await mailTo(t, email, /./), 'verificationToken'), 'WEB2');
    expect(verified.statusCode, verified.body).toBe(200);
    const subscribed = await db().selectFrom('newsletter_subscriber').select('store_code').where('email', '=', email).execute();
    expect(subscribed.map((row) => row.store_code)).toEqual(['WEB']);
    expect(await emailEvents(email)).toEqual([{ store: 'WEB', granted: true, source: 'PROFILE' }]);
  });

  it("records a subscribe form's link of an address whose registration is not verified yet in that registration's user", async () => {
    const email = uniqueEmail('once-unverified');
    expect((await register(t, email, 'WEB')).statusCode).toBe(200);
    const verification = tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
    await subscribeConfirmed(t, email, 'en', 'WEB2');
    expect(await emailEvents(email)).toEqual([{ store: 'WEB2', granted: true, source: 'CONFIRMATION_LINK' }]);
    const verified = await verify(t, verification, 'WEB');
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await emailEvents(email)).toEqual([{ store: 'WEB2', granted: true, source: 'CONFIRMATION_LINK' }]);
  });
});
