import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../src/infra/cli-usage.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import { contactCommand } from '../../src/modules/contact/index.js';
import { createShop } from '../helpers/catalogue.js';
import { createCustomer, emailOf, userIdOf } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// The contact page: the office's data and shops; the form's validation, limits per client address
// and per sender's email, and honeypot; both mails (office with Reply-To the sender, acknowledgement in the sender's
// language, copying what was written only to a logged-in customer's own confirmed email) through the
// outbox to a real SMTP server.

let t: TestApp;
let smtp: SmtpCatcher;
let addressCounter = 0;
// Each test posts from its own client address, so the limit of one does not spill into another.
const nextIp = () => `198.51.100.${++addressCounter}`;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    env: {
      SMTP_URL: smtp.url,
      CONTACT_RATE_LIMIT_PER_IP: '3/1h',
      // The tests send as one sender; the per-email limit's own test uses senders of its own.
      CONTACT_RATE_LIMIT_PER_EMAIL: '15/1h',
      // The acknowledgements to one address have their own test (ack-per-address.test.ts).
      CONTACT_ACK_PER_EMAIL: '1000/1d',
      BACKOFFICE_EMAILS: 'backoffice@example.ee',
    },
  });
  await contactCommand(
    t.database.db,
    ['set', 'WEB', '--company=Raamat OÜ', '--email=office@example.ee', '--phone=+372 600 0000', '--address=Viru 1, Tallinn'],
    () => {},
  );
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.clear());

const form = { name: 'Mari Maasikas', email: 'mari@example.ee', subject: 'Tellimuse kohta', message: 'Kas mu raamat on teel?\nAitäh!' };
const post = (body: object, options: { ip?: string; language?: string; store?: string; token?: string } = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/contact',
    payload: body,
    remoteAddress: options.ip ?? nextIp(),
    headers: {
      ...(options.language && { 'x-app-language': options.language }),
      ...(options.store && { store: options.store }),
      ...(options.token && { authorization: `Bearer ${options.token}` }),
    },
  });
const recipients = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address));

describe('GET /contact', () => {
  it("answers the store's office data and its active shops, cacheable by anyone", async () => {
    const code = `CSHOP${Date.now().toString(36)}`;
    await createShop(t.database.db, { code, name: 'Kesklinna pood' });
    const response = await t.app.inject({ method: 'GET', url: '/contact' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=600');
    const body = response.json();
    expect(body.store).toEqual({
      code: 'WEB',
      name: 'Main store',
      companyName: 'Raamat OÜ',
      email: 'office@example.ee',
      phone: '+372 600 0000',
      address: 'Viru 1, Tallinn',
    });
    expect(body.shops.map((shop: { code: string }) => shop.code)).toContain(code);
    expect(body.shops.find((shop: { code: string }) => shop.code === code).name).toBe('Kesklinna pood');
  });

  it('tells shared caches that the answer depends on the store and the language (Vary)', async () => {
    // The answer differs by store (its office) and by x-app-language (the shops' names): a CDN that keyed it
    // on the URL alone would hand one store's or language's page to every caller.
    const estonian = await t.app.inject({ method: 'GET', url: '/contact', headers: { store: 'WEB', 'x-app-language': 'et' } });
    const outlet = await t.app.inject({ method: 'GET', url: '/contact', headers: { store: 'WEB2', 'x-app-language': 'et' } });
    expect(estonian.json().store.code).not.toBe(outlet.json().store.code);
    for (const response of [estonian, outlet]) {
      expect(response.headers['cache-control']).toBe('public, max-age=600');
      const vary = String(response.headers.vary ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase());
      expect(vary).toEqual(expect.arrayContaining(['store', 'x-app-language']));
    }
  });

  it('shows empty fields for a store whose office data has not been set', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/contact', headers: { store: 'WEB2' } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().store).toMatchObject({ code: 'WEB2', companyName: null, email: null, phone: null, address: null });
  });
});

describe('POST /contact', () => {
  it('mails the office (Reply-To the sender, with the order) and acknowledges to the sender in their language', async () => {
    const response = await post({ ...form, orderCode: ' A-1001 ' }, { language: 'en' });
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toEqual({});
    expect(await t.drainJobs()).toBe(2);
    const office = smtp.mails.find((mail) => recipients(mail).includes('office@example.ee'))!;
    expect(office.subject).toBe('Kontaktivorm: Tellimuse kohta');
    expect(office.replyTo?.value[0]?.address).toBe('mari@example.ee');
    expect(office.text).toContain('Mari Maasikas <mari@example.ee>');
    expect(office.text).toContain('Tellimus: A-1001');
    expect(office.text).toContain('Kas mu raamat on teel?');
    const ack = smtp.mails.find((mail) => recipients(mail).includes('mari@example.ee'))!;
    expect(ack.subject).toBe('We received your message – Main store');
    expect(ack.text).toBe('Thank you for writing to Main store. We have received your message and will answer it as soon as we can.');
    expect(smtp.mails).toHaveLength(2);
  });

  it('acknowledges a guest bare: nothing the request wrote reaches the address it named, in any language', async () => {
    // Anyone may type anyone's address: the shop must not mail a stranger's words under its name.
    const lure = 'CLAIM-YOUR-PRIZE https://phish.example/login';
    for (const language of ['et', 'en', 'ru']) {
      smtp.clear();
      const victim = `victim-${language}@example.ee`;
      const body = { name: `Your bank ${lure}`, email: victim, subject: `Account locked ${lure}`, message: `Log in at ${lure}` };
      expect((await post(body, { language })).statusCode).toBe(202);
      expect(await t.drainJobs()).toBe(2);
      const ack = smtp.mails.find((mail) => recipients(mail).includes(victim))!;
      expect(ack, language).toBeDefined();
      for (const part of [smtp.raw(ack), ack.subject ?? '', ack.text ?? '', String(ack.html)]) {
        for (const piece of ['CLAIM-YOUR-PRIZE', 'phish.example', 'Your bank', 'Account locked'])
          expect(part, language).not.toContain(piece);
      }
      // The office still gets all of it.
      const office = smtp.mails.find((mail) => recipients(mail).includes('office@example.ee'))!;
      expect(office.text).toContain(`Log in at ${lure}`);
    }
  });

  it('copies the message to a logged-in customer writing from their own confirmed email, in any case; another address gets it bare', async () => {
    const customer = await createCustomer(t.database.db, { store: 'WEB' });
    const own = await emailOf(t.database.db, customer);
    const mine = { ...form, email: own.toUpperCase(), subject: 'Minu tellimus', message: 'Kus on mu pakk?' };
    expect((await post(mine, { token: customer.token, language: 'en' })).statusCode).toBe(202);
    expect(await t.drainJobs()).toBe(2);
    const copy = smtp.mails.find((mail) => recipients(mail).some((to) => to?.toLowerCase() === own.toLowerCase()))!;
    expect(copy.text).toContain('Dear Mari Maasikas');
    expect(copy.text).toContain('Your message "Minu tellimus":');
    expect(copy.text).toContain('Kus on mu pakk?');

    smtp.clear();
    const other = { ...form, email: 'someone.else@example.ee', subject: 'Teise aadressiga', message: 'Seda ei tohi kopeerida' };
    expect((await post(other, { token: customer.token, language: 'en' })).statusCode).toBe(202);
    expect(await t.drainJobs()).toBe(2);
    const bare = smtp.mails.find((mail) => recipients(mail).includes('someone.else@example.ee'))!;
    expect(smtp.raw(bare)).not.toContain('kopeerida');
    expect(smtp.raw(bare)).not.toContain('Teise aadressiga');
    expect(bare.text).toBe('Thank you for writing to Main store. We have received your message and will answer it as soon as we can.');
  });

  it('acknowledges bare a logged-in customer whose login email is not confirmed, and refuses a bad token with 401', async () => {
    const customer = await createCustomer(t.database.db, { store: 'WEB' });
    const own = await emailOf(t.database.db, customer);
    await t.database.db
      .insertInto('unconfirmed_login_email')
      .values({ user_id: await userIdOf(t.database.db, customer), since: Date.now() })
      .execute();
    expect((await post({ ...form, email: own, message: 'Kinnitamata aadress' }, { token: customer.token })).statusCode).toBe(202);
    expect(await t.drainJobs()).toBe(2);
    const ack = smtp.mails.find((mail) => recipients(mail).includes(own.toLowerCase()))!;
    expect(smtp.raw(ack)).not.toContain('Kinnitamata');
    smtp.clear();
    const bad = await post({ ...form, message: 'Vale võti' }, { token: 'x'.repeat(43) });
    expect(bad.statusCode).toBe(401);
    expect(await t.drainJobs()).toBe(0);
  });

  it('escapes what the sender wrote in the HTML of both mails', async () => {
    const customer = await createCustomer(t.database.db, { store: 'WEB' });
    const own = await emailOf(t.database.db, customer);
    const script = { ...form, email: own, message: '<script>alert(1)</script><img src=x onerror=alert(2)>' };
    expect((await post(script, { token: customer.token })).statusCode).toBe(202);
    await t.drainJobs();
    expect(smtp.mails).toHaveLength(2);
    for (const mail of smtp.mails) {
      expect(mail.html).not.toContain('<script>');
      expect(mail.html).not.toContain('<img');
      expect(mail.html).toContain('&lt;script&gt;');
    }
  });

  it('`contact set` takes as the office address only one the API would take from a customer, and changes nothing otherwise', async () => {
    for (const email of [
      'office',
      'office@localhost',
      'office@shop',
      'the office@example.ee',
      'office@@example.ee',
      `${'o'.repeat(250)}@example.ee`,
    ]) {
      await expect(
        contactCommand(t.database.db, ['set', 'WEB', `--email=${email}`], () => {}),
        email,
      ).rejects.toBeInstanceOf(CliUsageError);
    }
    const office = await t.app.inject({ method: 'GET', url: '/contact', headers: { store: 'WEB' } });
    expect(office.json().store).toMatchObject({ email: 'office@example.ee' });
  });

  it('goes to BACKOFFICE_EMAILS when the store has no office email', async () => {
    expect((await post(form, { store: 'WEB2' })).statusCode).toBe(202);
    await t.drainJobs();
    expect(smtp.mails.flatMap(recipients).sort()).toEqual(['backoffice@example.ee', 'mari@example.ee']);
  });

  it("keeps a message whose office address does not exist as a dead job at once; a sender's own such address ends the acknowledgement", async () => {
    const setEmail = (email: string) => contactCommand(t.database.db, ['set', 'WEB2', `--email=${email}`], () => {});
    smtp.refuseRecipient('closed-office@example.ee', '550 5.1.1 No such user');
    smtp.refuseRecipient('mari.typo@example.ee', '550 5.1.1 No such user');
    await setEmail('closed-office@example.ee');
    try {
      expect((await post({ ...form, email: 'mari.typo@example.ee' }, { store: 'WEB2' })).statusCode).toBe(202);
      await t.jobs.worker.drain({ includeDelayed: true });
      expect(smtp.mails).toHaveLength(0);
      const jobs = await t.database.db
        .selectFrom('job')
        .select(['id', 'status', 'attempts', 'result', 'last_error'])
        .where('last_error', 'like', '%5.1.1%')
        .orderBy('id')
        .execute();
      const [office, ack] = [jobs.find((job) => job.status === 'dead'), jobs.find((job) => job.status === 'done')];
      expect(jobs, JSON.stringify(jobs)).toHaveLength(2);
      expect(office, JSON.stringify(jobs)).toMatchObject({ attempts: 1, result: null });
      expect(office?.last_error).toContain("the office's address closed-office@example.ee does not take mail");
      expect(ack).toMatchObject({ attempts: 1, result: 'refused: no such mailbox' });
      // Mended and retried, the customer's message reaches the office.
      await setEmail('office2@example.ee');
      expect(await retryJob(t.database.db, office!.id)).toBe(true);
      await t.drainJobs();
      expect(smtp.mails.flatMap(recipients)).toEqual(['office2@example.ee']);
    } finally {
      await setEmail('');
    }
  });

  it('answers a filled honeypot the same and sends nothing', async () => {
    const response = await post({ ...form, website: 'http://spam.example' });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({});
    expect(await t.drainJobs()).toBe(0);
    expect(smtp.mails).toEqual([]);
    // An empty honeypot (what the real form sends) is a real message.
    expect((await post({ ...form, website: '' })).statusCode).toBe(202);
    expect(await t.drainJobs()).toBe(2);
  });

  it('refuses bad input with 422 field errors and queues nothing', async () => {
    const bad: Array<[object, string]> = [
      [{ ...form, email: 'not-an-email' }, 'email'],
      [{ ...form, name: '   ' }, 'name'],
      [{ ...form, subject: 'Hi\r\nBcc: victim@example.ee' }, 'subject'],
      [{ ...form, message: '' }, 'message'],
      [{ ...form, message: 'x'.repeat(5001) }, 'message'],
      [{ ...form, orderCode: 'A 1; drop' }, 'orderCode'],
      [{ ...form, email: 123 }, 'email'],
      [{ name: 'Only a name' }, 'email'],
    ];
    for (const [body, field] of bad) {
      const response = await post(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(response.json()), JSON.stringify(body)).toContain(field);
    }
    const notJson = await t.app.inject({ method: 'POST', url: '/contact', payload: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(notJson.statusCode).toBe(415);
    const broken = await t.app.inject({
      method: 'POST',
      url: '/contact',
      payload: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.statusCode).toBe(400);
    expect(await t.drainJobs()).toBe(0);
  });

  it('counts per client address: the fourth message from one address is a 429 with Retry-After, honeypot or not', async () => {
    const ip = nextIp();
    // Messages of their own: the same message again within minutes is sent once (a double submit).
    const message = (n: number) => ({ ...form, message: `${form.message} (${n})` });
    expect((await post(message(1), { ip })).statusCode).toBe(202);
    expect((await post({ ...message(2), website: 'bot' }, { ip })).statusCode).toBe(202);
    expect((await post(message(3), { ip })).statusCode).toBe(202);
    const refused = await post(message(4), { ip });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({ status: 429 });
    // Another address is not affected.
    expect((await post(message(5))).statusCode).toBe(202);
    expect(await t.drainJobs()).toBe(6);
  });

  it("counts per sender's email too: from many addresses, past the limit a 429 that mails nothing; another sender is not affected", async () => {
    const sender = { ...form, email: 'Sage.Saatja@Example.ee' };
    const message = (n: number) => ({ ...sender, message: `${form.message} (${n})` });
    for (let n = 1; n <= 15; n += 1) expect((await post(message(n))).statusCode).toBe(202);
    await t.drainJobs();
    smtp.clear();
    // The same address in other letters is the same sender.
    const refused = await post({ ...message(16), email: 'SAGE.saatja@example.EE' });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({ status: 429 });
    expect(await t.drainJobs()).toBe(0);
    expect((await post({ ...message(17), email: 'teine.saatja@example.ee' })).statusCode).toBe(202);
    expect(await t.drainJobs()).toBe(2);
  });
});
