import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { as } from '../profile/helpers.js';
import { call, companyMaster, invite } from './fixtures.js';

// A company's invitation link and a retail registration's verification link reach one mailbox, and
// each must work whichever came last. They shared one slot on the user, so the later mail's link
// killed the earlier one: a shop registration of the address broke a pending invitation (its link
// a 400), and an invitation broke a registration's link. A confirmed email change and the person's
// erasure still forget the invitation's link, as they forget the others.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const INVITATION = /Teid kutsuti/;
const VERIFICATION = /Kinnitage oma e-posti aadress/;

const linksOf = (clientAccountId: number) =>
  t.database.db.selectFrom('invitation_token').select('token_hash').where('client_account_id', '=', clientAccountId).execute();

/** Follows a link and answers the role and store of the session it opened. */
async function followed(token: string) {
  const verified = await verify(t, token);
  expect(verified.statusCode, verified.body).toBe(200);
  const { role, webStoreNavCode } = (await me(t, verified.json().accessToken, verified.json().webStoreNavCode)).json();
  return { role, webStoreNavCode };
}

describe("an invitation's link and a retail registration's link to one address", () => {
  it('both work when the person registers in the shop after the invitation', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('invited-first');
    await invite(t, master.token, email);
    const invitation = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');
    expect((await register(t, email)).statusCode).toBe(200);
    const registration = tokenFromMail(await mailTo(t, email, VERIFICATION), 'verificationToken');

    expect(await followed(invitation)).toEqual({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect(await followed(registration)).toEqual({ role: 'SIMPLE', webStoreNavCode: 'WEB' });
    // Two accounts in the store: login asks which.
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
  });

  it('both work when the person registered in the shop before the invitation', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('registered-first');
    expect((await register(t, email, 'WEB2')).statusCode).toBe(200);
    const registration = tokenFromMail(await mailTo(t, email, VERIFICATION), 'verificationToken');
    await invite(t, master.token, email);
    const invitation = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');

    expect(await followed(registration)).toEqual({ role: 'SIMPLE', webStoreNavCode: 'WEB2' });
    expect(await followed(invitation)).toEqual({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
  });

  it('a confirmed email change forgets the invitation link mailed to the old address', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const own = await registerVerified(t, oldEmail, 'WEB2');
    const { id } = await invite(t, master.token, oldEmail);
    const invitation = tokenFromMail(await mailTo(t, oldEmail, INVITATION), 'verificationToken');

    const person = as(t, own, 'WEB2');
    const asked = await person('PUT', '/user/me', { email: newEmail, currentPassword: GOOD_PASSWORD });
    expect(asked.statusCode, asked.body).toBe(200);
    const change = /[?&]token=([A-Za-z0-9_-]+)/.exec((await mailTo(t, newEmail, /./)).text ?? '')![1]!;
    const confirmed = await person('POST', '/user/me/confirm-email', { token: change });
    expect(confirmed.statusCode, confirmed.body).toBe(200);

    expectErrorBody(await verify(t, invitation), 400, 'Bad Request');
    const meta = await t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${invitation}` });
    expectErrorBody(meta, 400, 'Bad Request');
    expect(await linksOf(id)).toEqual([]);
    // The company's invitation stands, waiting for a new one (removed and sent again, to the new address).
    expect((await call(t, 'GET', '/company-user?per-page=100', master.token)).json()).toContainEqual(
      expect.objectContaining({ id, email: newEmail, status: 'INVITED' }),
    );
  });

  it("the person's erasure forgets the invitation link", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('erased');
    const own = await registerVerified(t, email, 'WEB2');
    const { id } = await invite(t, master.token, email);
    const invitation = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');
    const erased = await as(t, own, 'WEB2')('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await linksOf(id)).toEqual([]);
    expectErrorBody(await verify(t, invitation), 400, 'Bad Request');
  });
});
