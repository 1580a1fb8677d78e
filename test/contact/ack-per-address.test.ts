import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A guest's contact form mails an acknowledgement to whatever address was typed. Limited per client
// address and per sender email (5 an hour), many client addresses together still sent a stranger
// 5 acknowledgements an hour, every hour. CONTACT_ACK_PER_EMAIL caps them per mailbox (one a day by
// default); the office still gets every message.

let t: TestApp;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, BACKOFFICE_EMAILS: 'backoffice@example.ee' } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
const recipients = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address));

it('sends a stranger at most one acknowledgement a day whatever the addresses that name them', async () => {
  const victim = 'victim@example.ee';
  for (let i = 0; i < 5; i++) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/contact',
      remoteAddress: `203.0.113.${i + 1}`,
      payload: { name: 'X', email: i % 2 ? 'Victim+' + i + '@Example.ee' : victim, subject: `s${i}`, message: `m${i}` },
    });
    expect(response.statusCode, response.body).toBe(202);
  }
  await t.drainJobs();
  const acks = smtp.mails.filter((mail) => recipients(mail).some((to) => to?.toLowerCase().startsWith('victim')));
  expect(acks).toHaveLength(1);
  expect(smtp.mails.filter((mail) => recipients(mail).includes('backoffice@example.ee'))).toHaveLength(5);
}, 60_000);
