import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pruneRefusedAddresses, REFUSED_ADDRESS_KEPT_MS } from '../../src/infra/mail/refused-addresses.js';
import { marketingEmailOf, wishlistOfferRecipient, wishlistOfferRecipients } from '../../src/modules/profile/index.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// An address whose mail server refused a mail as a mailbox that does not exist gets no marketing mail
// (a basket's reminder: marketingEmailOf; a wishlist's offers: wishlistOfferRecipient) until a mail
// to it is accepted; mails the customer asks for still go. Through the real outbox and SMTP server.

let t: TestApp;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    env: {
      SMTP_URL: smtp.url,
      CONTACT_RATE_LIMIT_PER_EMAIL: '100/1h',
      // Acknowledgements to one address are what this file sends, again and again (one a day by default).
      CONTACT_ACK_PER_EMAIL: '100/1d',
      BACKOFFICE_EMAILS: 'office-a@shop.ee,office-b@shop.ee',
    },
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.clear());

const db = () => t.database.db;
const auth = (customer: TestCustomer) => ({ authorization: `Bearer ${customer.token}` });

/** A client with the email consent and wishlist offers on, as the front end turns them on. */
async function optedIn(): Promise<{ customer: TestCustomer; email: string }> {
  const customer = await createCustomer(db());
  for (const [url, payload] of [
    ['/client-account', { marketingConsents: { email: true } }],
    ['/client-account/preferences', { notifications: { wishlistOffers: true } }],
  ] as const) {
    const response = await t.app.inject({ method: 'PUT', url, headers: auth(customer), payload });
    expect(response.statusCode, response.body).toBe(200);
  }
  return { customer, email: await emailOf(db(), customer) };
}

let sent = 0;
/** Sends the contact form as `email` and runs the outbox: the result of the acknowledgement to them. */
async function acknowledged(email: string): Promise<string | null> {
  const form = { name: 'Mari', email, subject: 'Küsimus', message: `Kas see raamat tuleb? (${sent + 1})` };
  const posted = await t.app.inject({
    method: 'POST',
    url: '/contact',
    headers: { store: 'WEB' },
    payload: form,
    remoteAddress: `192.0.2.${++sent}`,
  });
  expect(posted.statusCode, posted.body).toBe(202);
  await t.jobs.worker.drain({ includeDelayed: true });
  const jobs = await db()
    .selectFrom('job')
    .select(['payload', 'result'])
    .where('type', '=', 'contact.mail')
    .orderBy('id', 'desc')
    .limit(2)
    .execute();
  return jobs.find((job) => (JSON.parse(job.payload) as { to: string }).to === 'sender')!.result;
}

const refusedRows = (email: string) => db().selectFrom('refused_mail_address').selectAll().where('address', '=', email).execute();

describe('an address refused for good', () => {
  it('gets no marketing mail once a mail to it was refused, and gets it again once one is accepted', async () => {
    const { customer, email } = await optedIn();
    expect(await marketingEmailOf(db(), customer.clientAccountId)).toBe(email);
    expect((await wishlistOfferRecipient(db(), customer.clientAccountId))?.email).toBe(email);

    smtp.refuseRecipient(email, '550 5.1.1 No such user');
    expect(await acknowledged(email)).toBe('refused: no such mailbox');
    expect(await refusedRows(email)).toHaveLength(1);
    expect(await marketingEmailOf(db(), customer.clientAccountId)).toBeNull();
    expect(await wishlistOfferRecipient(db(), customer.clientAccountId)).toBeUndefined();
    const page = await wishlistOfferRecipients(db(), customer.clientAccountId - 1, 200);
    expect(page.recipients.map((recipient) => recipient.email)).not.toContain(email);

    // What the customer asks for is still mailed: this time the mailbox exists, and that says so.
    smtp.acceptRecipient(email);
    expect(await acknowledged(email)).toBe('sent');
    expect(smtp.mails.filter((mail) => JSON.stringify(mail.to).includes(email))).toHaveLength(1);
    expect(await refusedRows(email)).toEqual([]);
    expect(await marketingEmailOf(db(), customer.clientAccountId)).toBe(email);
    expect((await wishlistOfferRecipient(db(), customer.clientAccountId))?.email).toBe(email);
  });

  it('is not kept for a refusal the server may take back (a 4xx, a bare 550), nor for other customers', async () => {
    const { customer, email } = await optedIn();
    const other = await optedIn();
    // Retried until dead (no result), as before: the operators' to look at, not a dead mailbox.
    smtp.refuseRecipient(email, '450 4.2.1 Mailbox busy');
    expect(await acknowledged(email)).toBeNull();
    smtp.refuseRecipient(email, '550 Rejected');
    expect(await acknowledged(email)).toBeNull();
    smtp.acceptRecipient(email);
    expect(await refusedRows(email)).toEqual([]);
    expect(await marketingEmailOf(db(), customer.clientAccountId)).toBe(email);

    smtp.refuseRecipient(email, '550 5.1.1 No such user');
    expect(await acknowledged(email)).toBe('refused: no such mailbox');
    smtp.acceptRecipient(email);
    expect(await marketingEmailOf(db(), customer.clientAccountId)).toBeNull();
    expect(await marketingEmailOf(db(), other.customer.clientAccountId)).toBe(other.email);
  });

  it('is not taken off by a mail to several addresses (the server may have refused it and sent to the others)', async () => {
    await db().insertInto('refused_mail_address').values({ address: 'office-a@shop.ee', refused_at: Date.now() }).execute();
    // The contact form's office mail goes to both BACKOFFICE_EMAILS (the store has no office address).
    expect(await acknowledged('kirjutaja@shop.ee')).toBe('sent');
    expect(smtp.mails.some((mail) => mail.to !== undefined && JSON.stringify(mail.to).includes('office-b@shop.ee'))).toBe(true);
    expect(await refusedRows('office-a@shop.ee')).toHaveLength(1);
  });

  it('is forgotten 180 days after its last refusal', async () => {
    const now = Date.now();
    await db()
      .insertInto('refused_mail_address')
      .values([
        { address: 'old@shop.ee', refused_at: now - REFUSED_ADDRESS_KEPT_MS - 1 },
        { address: 'recent@shop.ee', refused_at: now - REFUSED_ADDRESS_KEPT_MS + 60_000 },
      ])
      .execute();
    expect(await pruneRefusedAddresses(db(), now)).toBe(1);
    expect(await refusedRows('old@shop.ee')).toEqual([]);
    expect(await refusedRows('recent@shop.ee')).toHaveLength(1);
  });

  it("is in the person's data export, and goes with the person", async () => {
    const { customer, email } = await optedIn();
    smtp.refuseRecipient(email, '550 5.1.1 No such user');
    await acknowledged(email);
    smtp.acceptRecipient(email);
    const exported = await t.app.inject({ method: 'GET', url: '/client-account/export', headers: auth(customer) });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().refusedMailAddress).toEqual({ address: email, refusedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    const gone = await t.app.inject({ method: 'DELETE', url: '/client-account', headers: auth(customer), payload: {} });
    expect(gone.statusCode, gone.body).toBeLessThan(300);
    expect(await refusedRows(email)).toEqual([]);
  });
});
