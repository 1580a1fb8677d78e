import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { marketingEmailOf } from '../../src/modules/profile/index.js';
import { runCli } from '../helpers/cli.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, TEST_CARD_TOKEN_KEYS, type TestApp } from '../helpers/test-app.js';

// A bounce that comes after the server took the mail (a relay learns later that the mailbox does not
// exist) reaches MAIL_BOUNCE_ADDRESS tagged for its recipient; the mail server pipes it to
// `storefront mail bounce`, which keeps the address as refused, so its marketing mail stops. A notice
// for another address, a forged tag, a delay or anything else that is not a failed delivery changes nothing.

const BOUNCE_ADDRESS = 'bounces@shop.example';
let t: TestApp;
let smtp: SmtpCatcher;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    sqliteFile: true,
    env: { SMTP_URL: smtp.url, MAIL_BOUNCE_ADDRESS: BOUNCE_ADDRESS, CONTACT_RATE_LIMIT_PER_EMAIL: '100/1h' },
  });
  cliEnv = { DATABASE_URL: t.config.databaseUrl, CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS, MAIL_BOUNCE_ADDRESS: BOUNCE_ADDRESS };
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.clear());

const db = () => t.database.db;

/** A client with the email consent, mailed once (the contact form's acknowledgement): the envelope sender of that mail. */
let sent = 0;
async function mailedClient(): Promise<{ customer: TestCustomer; email: string; sender: string }> {
  const customer = await createCustomer(db());
  const consent = await t.app.inject({
    method: 'PUT',
    url: '/client-account',
    headers: { authorization: `Bearer ${customer.token}` },
    payload: { marketingConsents: { email: true } },
  });
  expect(consent.statusCode, consent.body).toBe(200);
  const email = await emailOf(db(), customer);
  const form = { name: 'Mari', email, subject: 'Küsimus', message: `Kas see raamat tuleb? (${++sent})` };
  const posted = await t.app.inject({
    method: 'POST',
    url: '/contact',
    headers: { store: 'WEB' },
    payload: form,
    remoteAddress: `192.0.2.${sent}`,
  });
  expect(posted.statusCode, posted.body).toBe(202);
  await t.jobs.worker.drain({ includeDelayed: true });
  const mail = await smtp.waitFor((candidate) => candidate.to !== undefined && JSON.stringify(candidate.to).includes(email));
  return { customer, email, sender: smtp.envelopeFrom(mail)! };
}

/** A delivery status notification (RFC 3464) as a relay sends it to the envelope sender. */
function notice(options: {
  to: string;
  recipient: string;
  action?: string;
  status?: string;
  base64?: boolean;
  deliveredTo?: string;
  /** The address the mail was sent to, when the relay reports it apart from the one that failed (an alias). */
  original?: string;
}): string {
  const fields = [
    'Reporting-MTA: dns; relay.example.net',
    'Arrival-Date: Thu, 3 Dec 2026 06:00:00 +0000',
    '',
    ...(options.original ? [`Original-Recipient: rfc822; ${options.original}`] : []),
    `Final-Recipient: rfc822; ${options.recipient}`,
    `Action: ${options.action ?? 'failed'}`,
    `Status: ${options.status ?? '5.1.1'}`,
    `Diagnostic-Code: smtp; 550 5.1.1 <${options.recipient}>: Recipient address rejected: User unknown`,
    '',
  ].join('\r\n');
  const part = options.base64
    ? Buffer.from(fields)
        .toString('base64')
        .replace(/(.{76})/g, '$1\r\n')
    : fields;
  return [
    'From: MAILER-DAEMON@relay.example.net (Mail Delivery System)',
    ...(options.deliveredTo ? [`Delivered-To: ${options.deliveredTo}`] : []),
    `To: ${options.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status;',
    '\tboundary="B0UND"',
    '',
    'This is a MIME-encapsulated message.',
    '',
    '--B0UND',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'I am sorry to have to inform you that your message could not be delivered.',
    '',
    '--B0UND',
    'Content-Type: message/delivery-status',
    ...(options.base64 ? ['Content-Transfer-Encoding: base64'] : []),
    '',
    part,
    '--B0UND',
    'Content-Type: text/rfc822-headers',
    '',
    `To: ${options.recipient}`,
    'Subject: Küsimus',
    '',
    '--B0UND--',
    '',
  ].join('\r\n');
}

const bounce = (message: string, args: string[] = [], env: Record<string, string> = {}) =>
  runCli(['mail', 'bounce', ...args], { ...cliEnv, ...env }, message);
const refused = async (email: string) =>
  (await db().selectFrom('refused_mail_address').select('address').where('address', '=', email).execute()).length > 0;

describe('late bounces', () => {
  it('tags each mail to one address with its own bounce address, and keeps the address a bounce names as refused', async () => {
    const first = await mailedClient();
    const second = await mailedClient();
    expect(first.sender).toMatch(/^bounces\+[0-9a-f]{32}@shop\.example$/);
    expect(second.sender).not.toBe(first.sender);
    expect(await marketingEmailOf(db(), first.customer.clientAccountId)).toBe(first.email);

    const result = await bounce(notice({ to: first.sender, recipient: first.email }));
    expect(result).toMatchObject({ code: 0, stdout: 'refused: 1 address(es) kept as refused\n' });
    expect(result.stdout).not.toContain(first.email);
    expect(await refused(first.email)).toBe(true);
    expect(await marketingEmailOf(db(), first.customer.clientAccountId)).toBeNull();
    expect(await refused(second.email)).toBe(false);
  });

  it('keeps the address after the next mail the relay takes for it: taking mail is what the relay does', async () => {
    const client = await mailedClient();
    expect((await bounce(notice({ to: client.sender, recipient: client.email }))).stdout).toBe('refused: 1 address(es) kept as refused\n');
    // The customer writes again: the acknowledgement goes to the dead address, and the relay takes it.
    const posted = await t.app.inject({
      method: 'POST',
      url: '/contact',
      headers: { store: 'WEB' },
      payload: { name: 'Mari', email: client.email, subject: 'Küsimus', message: 'Kas see raamat tuleb? (uuesti)' },
      remoteAddress: '192.0.2.250',
    });
    expect(posted.statusCode, posted.body).toBe(202);
    await t.jobs.worker.drain({ includeDelayed: true });
    expect(await refused(client.email)).toBe(true);
    expect(await marketingEmailOf(db(), client.customer.clientAccountId)).toBeNull();
  });

  it("takes no notice whose tag is not its recipient's: a forged or another address's bounce changes nothing", async () => {
    const victim = await mailedClient();
    const other = await mailedClient();
    const forged = [
      notice({ to: other.sender, recipient: victim.email }),
      notice({ to: BOUNCE_ADDRESS.replace('@', `+${'0'.repeat(32)}@`), recipient: victim.email }),
      notice({ to: BOUNCE_ADDRESS, recipient: victim.email }),
      notice({ to: victim.sender.replace('shop.example', 'elsewhere.example'), recipient: victim.email }),
    ];
    const outcomes = [];
    for (const message of forged) outcomes.push(await bounce(message));
    expect(outcomes.map((outcome) => [outcome.code, outcome.stdout])).toEqual([
      [0, 'ignored: tag does not match\n'],
      [0, 'ignored: tag does not match\n'],
      [0, 'ignored: not sent to the bounce address\n'],
      [0, 'ignored: not sent to the bounce address\n'],
    ]);
    expect(await refused(victim.email)).toBe(false);
    expect(await marketingEmailOf(db(), victim.customer.clientAccountId)).toBe(victim.email);
  });

  it('keeps nothing for an alias one of whose mailboxes is gone: the alias the mail went to still works', async () => {
    const alias = await mailedClient();
    const expanded = notice({ to: alias.sender, recipient: 'left.the.company@example.com', original: alias.email });
    expect((await bounce(expanded)).stdout).toBe('ignored: tag does not match\n');
    expect(await refused(alias.email)).toBe(false);
  });

  it('keeps nothing for a delay, a full mailbox or a refusal by policy; only for an address that does not exist', async () => {
    const client = await mailedClient();
    for (const [action, status] of [
      ['delayed', '4.4.1'],
      ['failed', '4.2.2'],
      ['failed', '5.2.2'],
      ['failed', '5.7.1'],
      ['delivered', '2.0.0'],
    ]) {
      const result = await bounce(notice({ to: client.sender, recipient: client.email, action, status }));
      expect([result.code, result.stdout], `${action} ${status}`).toEqual([0, 'ignored: no mailbox refused for good\n']);
    }
    expect(await refused(client.email)).toBe(false);
    const gone = await bounce(notice({ to: client.sender, recipient: client.email, status: '5.1.10' }));
    expect(gone.stdout).toBe('refused: 1 address(es) kept as refused\n');
  });

  it('finds where the bounce went from the mail server (ORIGINAL_RECIPIENT, --to, Delivered-To), and reads an encoded report', async () => {
    const viaEnv = await mailedClient();
    const message = notice({ to: 'postmaster@shop.example', recipient: viaEnv.email, base64: true });
    expect((await bounce(message)).stdout).toBe('ignored: not sent to the bounce address\n');
    expect((await bounce(message, [], { ORIGINAL_RECIPIENT: viaEnv.sender })).stdout).toBe('refused: 1 address(es) kept as refused\n');
    // The first tagged address counts, wherever it is: an untagged --to does not hide the mail server's.
    const behindUntagged = await mailedClient();
    const behindMessage = notice({ to: 'postmaster@shop.example', recipient: behindUntagged.email });
    expect((await bounce(behindMessage, ['--to=postmaster@shop.example'], { ORIGINAL_RECIPIENT: behindUntagged.sender })).stdout).toBe(
      'refused: 1 address(es) kept as refused\n',
    );
    const viaOption = await mailedClient();
    const optionMessage = notice({ to: 'postmaster@shop.example', recipient: viaOption.email });
    expect((await bounce(optionMessage, [`--to=${viaOption.sender}`])).stdout).toBe('refused: 1 address(es) kept as refused\n');
    const viaHeader = await mailedClient();
    const headerMessage = notice({
      to: 'postmaster@shop.example',
      recipient: viaHeader.email,
      deliveredTo: viaHeader.sender.toUpperCase(),
    });
    expect((await bounce(headerMessage)).stdout).toBe('refused: 1 address(es) kept as refused\n');
    expect(await Promise.all([viaEnv, viaOption, viaHeader].map((client) => refused(client.email)))).toEqual([true, true, true]);
  });

  it('ignores what is not a bounce, and refuses a command it cannot run with its usage', async () => {
    const client = await mailedClient();
    for (const message of [
      '',
      'not a mail at all',
      `To: ${client.sender}\r\nSubject: Re: Küsimus\r\n\r\nAitäh!\r\n`,
      '\u0000'.repeat(2000),
    ]) {
      const result = await bounce(message);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^ignored: /);
      expect(result.stderr).toBe('');
    }
    expect((await bounce('x'.repeat(1_000_001))).stdout).toBe('ignored: over 1000000 bytes, not a bounce\n');
    expect(await refused(client.email)).toBe(false);
    expect((await bounce('', ['--from=x'])).code).toBe(2);
    expect((await runCli(['mail', 'send'], cliEnv, '')).code).toBe(2);
    const unset = await runCli(
      ['mail', 'bounce'],
      { ...cliEnv, MAIL_BOUNCE_ADDRESS: '' },
      notice({ to: client.sender, recipient: client.email }),
    );
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('MAIL_BOUNCE_ADDRESS is not set');
  });
});
