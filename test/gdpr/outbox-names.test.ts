import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  mailTo,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { payloadStrings, storedJobs } from '../helpers/job-emails.js';
import { as } from '../profile/helpers.js';

// The erasure clears a person's names, phone, birthday and gender, and the outbox keeps what a mail
// was queued with (done jobs for 30 days, dead ones for good): a registration's form, a business
// registration's contact person, a contact-form message. The jobs naming the person carry the
// placeholder for the email, and what the person gave with it (names, phone, birthday, gender, a
// message's subject and text) goes too; what is someone else's stays.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const post = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url, payload });

describe('the jobs naming an erased person', () => {
  it('keep none of the names, phone, birthday, gender or message the person gave', async () => {
    const email = uniqueEmail('kristjan');
    const other = uniqueEmail('other');
    const registered = await post('/auth/register-simple', {
      email,
      firstName: 'Kristjan',
      lastName: 'Lõokesepoeg',
      phone: '+372 5999 1111',
      birthday: '1987-04-12',
      gender: 'MALE',
    });
    expect(registered.statusCode, registered.body).toBe(200);
    const verified = await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    const token = verified.json().accessToken as string;

    const message = { name: 'Kristjan Lõokesepoeg', email, subject: 'Tellimus hilineb', message: 'Minu aadress on Karu 12-4, Tartu' };
    expect((await post('/contact', message)).statusCode).toBe(202);
    const business = await post('/auth/register-business', {
      companyName: 'Lõokese Raamat OÜ',
      registryCode: '12399999',
      address: { street: 'Karu 12', city: 'Tartu', postcode: '51004', countryCode: 'EE' },
      contact: { firstName: 'Kristjan', lastName: 'Lõokesepoeg', email, phone: '+372 5999 1111' },
    });
    expect(business.statusCode, business.body).toBe(200);
    // Someone else's message, naming the same surname: theirs, kept as it was.
    const othersMessage = { name: 'Mari Lõokesepoeg', email: other, subject: 'Küsimus', message: 'Kas Lõokesepoeg on ka autor?' };
    expect((await post('/contact', othersMessage)).statusCode).toBe(202);
    await t.drainJobs();

    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);

    const jobs = await storedJobs(t.database.db);
    const erasedJobs = jobs.filter((job) => payloadStrings(job.payload).some((value) => /^erased-\d+@erased\.invalid$/.test(value)));
    // The registration, the business registration, the two mails of the contact message (and their follow-ups).
    expect(erasedJobs.length).toBeGreaterThanOrEqual(4);
    const left = erasedJobs.flatMap((job) => payloadStrings(job.payload));
    for (const given of [
      'Kristjan',
      'Lõokesepoeg',
      'Kristjan Lõokesepoeg',
      '+372 5999 1111',
      '1987-04-12',
      'MALE',
      message.subject,
      message.message,
    ])
      expect(left, given).not.toContain(given);
    const others = jobs.filter((job) => payloadStrings(job.payload).includes(other));
    expect(others.length).toBeGreaterThanOrEqual(2);
    for (const job of others.filter((j) => j.type === 'contact.mail'))
      expect(payloadStrings(job.payload)).toEqual(
        expect.arrayContaining([othersMessage.name, othersMessage.subject, othersMessage.message]),
      );
  }, 60_000);
});
