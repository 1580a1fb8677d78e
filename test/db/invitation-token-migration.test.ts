import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as invitationTokenMigration from '../../src/db/migrations/2026_12_01_0610_create_invitation_token.js';
import {
  createAccountsTestApp,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { companyMaster, invite } from '../companies/fixtures.js';
import { engine } from '../helpers/test-app.js';

// Migration 0610 gives a company's invitation link a table of its own (invitation_token). An
// invitation mailed before it kept its link in the user's verification slot, as a registration's
// link; up moves the invitations' links over, so they keep working and a retail registration can no
// longer replace them, and leaves every other link (a registration's, a business registration's
// contact's) where it is. Down puts them back. Both engines, through the links' HTTP endpoint.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const businessForm = (email: string) => ({
  companyName: 'Kontaktisik OÜ',
  registryCode: '87654321',
  address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
  contact: { firstName: 'Kati', lastName: 'Kask', email, phone: '+372 5555 5555' },
});

const slotOf = (email: string) =>
  t.database.db
    .selectFrom('app_user')
    .select(['verification_token_hash', 'verification_client_account_id'])
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
const invitationLinks = () =>
  t.database.db.selectFrom('invitation_token').select(['client_account_id', 'token_hash']).orderBy('client_account_id').execute();

/** Follows a link and answers the role and store of the session it opened. */
async function followed(token: string) {
  const verified = await verify(t, token);
  expect(verified.statusCode, verified.body).toBe(200);
  const { role, webStoreNavCode } = (await me(t, verified.json().accessToken, verified.json().webStoreNavCode)).json();
  return { role, webStoreNavCode };
}

describe(`migration 2026_12_01_0610_create_invitation_token on ${engine}`, () => {
  it("moves the links of invitations mailed before it to their table; they keep working, and a registration's link no longer replaces them", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const newcomer = uniqueEmail('newcomer');
    const customer = uniqueEmail('customer');
    const contact = uniqueEmail('contact');
    const registrant = uniqueEmail('registrant');
    const invited = await invite(t, master.token, newcomer);
    await registerVerified(t, customer, 'WEB2');
    const invitedCustomer = await invite(t, master.token, customer);
    const links = {
      newcomer: tokenFromMail(await mailTo(t, newcomer, /Teid kutsuti/), 'verificationToken'),
      customer: tokenFromMail(await mailTo(t, customer, /Teid kutsuti/), 'verificationToken'),
    };
    const business = await t.app.inject({
      method: 'POST',
      url: '/auth/register-business',
      headers: { store: 'WEB' },
      payload: businessForm(contact),
    });
    expect(business.statusCode, business.body).toBe(200);
    const contactLink = tokenFromMail(await mailTo(t, contact, /./), 'verificationToken');
    expect((await register(t, registrant)).statusCode).toBe(200);
    const registrantLink = tokenFromMail(await mailTo(t, registrant, /./), 'verificationToken');

    // The schema before: the invitations' links in their users' verification slot, as that build kept them.
    const moved = await invitationLinks();
    expect(moved.map((link) => Number(link.client_account_id))).toEqual([invited.id, invitedCustomer.id]);
    await invitationTokenMigration.down(t.database.db);
    expect(await slotOf(newcomer)).toEqual({ verification_token_hash: moved[0]!.token_hash, verification_client_account_id: invited.id });
    expect(await slotOf(customer)).toEqual({
      verification_token_hash: moved[1]!.token_hash,
      verification_client_account_id: invitedCustomer.id,
    });
    const others = { contact: await slotOf(contact), registrant: await slotOf(registrant) };

    await invitationTokenMigration.up(t.database.db);
    expect(await invitationLinks()).toEqual(moved);
    expect(await slotOf(newcomer)).toEqual({ verification_token_hash: null, verification_client_account_id: null });
    expect(await slotOf(customer)).toEqual({ verification_token_hash: null, verification_client_account_id: null });
    expect(await slotOf(contact)).toEqual(others.contact);
    expect(await slotOf(registrant)).toEqual(others.registrant);

    // The newcomer registers in the shop too: the invitation's link survives the registration's.
    expect((await register(t, newcomer)).statusCode).toBe(200);
    const newcomerRegistration = tokenFromMail(await mailTo(t, newcomer, /Kinnitage oma e-posti/), 'verificationToken');
    expect(await followed(links.newcomer)).toEqual({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect(await followed(newcomerRegistration)).toEqual({ role: 'SIMPLE', webStoreNavCode: 'WEB' });
    expect(await followed(links.customer)).toEqual({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect(await followed(contactLink)).toEqual({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect(await followed(registrantLink)).toEqual({ role: 'SIMPLE', webStoreNavCode: 'WEB' });
  });
});
