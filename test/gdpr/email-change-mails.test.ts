import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  askEmailChange,
  changeEmailConfirmed,
  createAccountsTestApp,
  GOOD_PASSWORD,
  registerVerified,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { as } from '../profile/helpers.js';

// The profile's mails about an email change name the person's addresses beside their user id: the
// link to a new address (`newEmail`), and the notice to the old login email once it changed
// (`oldEmail`). The erasure replaced in the outbox only the login email the person had when erased,
// so their former login email, and an address they asked to move to, stayed in the kept jobs (30 days).

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t?.close());

/** The profile's mails in the outbox (an email change's link, the notice to the old address), as text. */
const profileMails = async () =>
  (await t.database.db.selectFrom('job').select('payload').where('type', '=', 'profile.mail').execute()).map((row) =>
    row.payload.toLowerCase(),
  );

describe('the erasure of a person who changed their login email', () => {
  it('leaves neither their former login email nor an address they asked to move to in the outbox', async () => {
    const first = uniqueEmail('vana');
    const token = await registerVerified(t, first);
    const second = uniqueEmail('uus');
    await changeEmailConfirmed(t, token, second);
    const asked = uniqueEmail('soovitud');
    expect((await askEmailChange(t, token, asked)).statusCode).toBe(200);
    await t.drainJobs();
    expect((await profileMails()).some((payload) => payload.includes(first.toLowerCase()))).toBe(true);

    expect((await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const left = await profileMails();
    for (const address of [first, second, asked]) expect(left.filter((payload) => payload.includes(address.toLowerCase()))).toEqual([]);
  });
});
