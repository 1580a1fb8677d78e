import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { as } from './helpers.js';

// A link mailed to the login email acts on the account because its follower holds that mailbox. Once
// the login email moved to another address (a confirmed change), a link still waiting at the old
// one must do nothing: whoever holds the old mailbox now (a former employer, a recycled address)
// would otherwise set the password and log in.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

const businessForm = (email: string) => ({
  companyName: 'Vana Postkast OÜ',
  registryCode: '12345678',
  address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
  contact: { firstName: 'Mari', lastName: 'Maasikas', email, phone: '+372 5555 5555' },
});

function changeToken(mail: ParsedMail): string {
  const match = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  expect(match, mail.text).not.toBeNull();
  return match![1]!;
}

describe('links at the old address after a confirmed email change', () => {
  it('a verification link mailed there before is a 400, and sets no password', async () => {
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const access = await registerVerified(t, oldEmail);
    t.smtp.mails.length = 0;
    // A company registered with the person as its contact: the link to confirm that account goes to the login email.
    const registered = await t.app.inject({
      method: 'POST',
      url: '/auth/register-business',
      headers: { store: 'WEB' },
      payload: businessForm(oldEmail),
    });
    expect(registered.statusCode, registered.body).toBe(200);
    const oldLink = tokenFromMail(await mailTo(t, oldEmail, /./), 'verificationToken');
    const metaBefore = await t.app.inject({
      method: 'GET',
      url: `/auth/verify-email-meta?verificationToken=${oldLink}`,
      headers: { store: 'WEB' },
    });
    expect(metaBefore.json()).toMatchObject({ email: oldEmail, accountType: 'BUSINESS', companyName: 'Vana Postkast OÜ' });

    const call = as(t, access);
    expect((await call('PUT', '/user/me', { email: newEmail, currentPassword: GOOD_PASSWORD })).statusCode).toBe(200);
    const confirmed = await call('POST', '/user/me/confirm-email', { token: changeToken(await mailTo(t, newEmail, /./)) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ email: newEmail });

    const meta = await t.app.inject({
      method: 'GET',
      url: `/auth/verify-email-meta?verificationToken=${oldLink}`,
      headers: { store: 'WEB' },
    });
    expectErrorBody(meta, 400, 'Bad Request');
    expect(meta.body).not.toContain(newEmail);
    expectErrorBody(
      await verify(t, oldLink, undefined, { password: 'Teine-parool-on-minu-99', passwordRepeat: 'Teine-parool-on-minu-99' }),
      400,
      'Bad Request',
    );
    // The person's password and session stand.
    expect((await login(t, newEmail)).statusCode).toBe(200);
    expect((await call('GET', '/client-account')).statusCode).toBe(200);

    // The company's account waits for its confirmation still: the form sent again mails the new address a link.
    t.smtp.mails.length = 0;
    const again = await t.app.inject({
      method: 'POST',
      url: '/auth/register-business',
      headers: { store: 'WEB' },
      payload: businessForm(newEmail),
    });
    expect(again.statusCode, again.body).toBe(200);
    const newLink = tokenFromMail(await mailTo(t, newEmail, /./), 'verificationToken');
    const verified = await verify(t, newLink);
    expect(verified.statusCode, verified.body).toBe(200);
    expect((await login(t, newEmail, GOOD_PASSWORD, 'WEB', 'BUSINESS')).statusCode).toBe(200);
  });
});
