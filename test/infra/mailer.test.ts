import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers/promises';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RefusedForGood } from '../../src/infra/jobs/refused-for-good.js';
import { createMailer, type MailerConfig, type MailMessage } from '../../src/infra/mail/mailer.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { recordingLogger } from '../helpers/logger.js';

const config = (overrides: Partial<MailerConfig>): MailerConfig => ({
  smtpUrl: undefined,
  smtpMaxConnections: 2,
  smtpMessagesPerConnection: 100,
  smtpMailsPerSecond: 0,
  from: 'Raamatupood <no-reply@shop.example>',
  replyTo: 'help@shop.example',
  dir: '/nonexistent',
  bounceAddress: undefined,
  ...overrides,
});

const message: MailMessage = {
  to: ['mari@example.com', 'jaan@example.com'],
  subject: 'Tere tulemast, Mari! Kinnita e-posti aadress',
  text: 'Tere!\nKinnita aadress: https://shop.example/verify-email?token=abc\n',
  html: '<p>Tere!</p><p><a href="https://shop.example/verify-email?token=abc">Kinnita</a> õigus</p>',
  headers: { 'X-Job-Id': '42' },
};

const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((object) => object.value.map((entry) => entry.address));

function expectSameMessage(mail: ParsedMail, replyTo: string) {
  expect(addresses(mail.from)).toEqual(['no-reply@shop.example']);
  expect(mail.from?.value[0]?.name).toBe('Raamatupood');
  expect(addresses(mail.to)).toEqual(['mari@example.com', 'jaan@example.com']);
  expect(addresses(mail.replyTo)).toEqual([replyTo]);
  expect(mail.subject).toBe(message.subject);
  expect(mail.text).toBe(message.text);
  expect(mail.html).toBe(message.html);
  expect(mail.headers.get('x-job-id')).toBe('42');
}

describe('the SMTP mailer', () => {
  let catcher: SmtpCatcher;
  beforeAll(async () => {
    catcher = await startSmtpCatcher();
  });
  afterAll(() => catcher.close());
  beforeEach(() => catcher.clear());

  it("never mails an erased person's .invalid address, and still mails the others of the message", async () => {
    const mailer = createMailer(config({ smtpUrl: catcher.url }), recordingLogger().log);
    try {
      expect(await mailer.send({ ...message, to: 'erased-7@erased.invalid', subject: 'to nobody' })).toEqual({
        messageId: 'not-sent:erased-recipient',
      });
      await mailer.send({ ...message, to: ['erased-7@erased.invalid', 'kati@example.com'], subject: 'to kati' });
      const mail = await catcher.waitFor((m) => m.subject === 'to kati');
      expect(addresses(mail.to)).toEqual(['kati@example.com']);
      expect(catcher.mails.map((m) => m.subject)).toEqual(['to kati']);
    } finally {
      mailer.close();
    }
  });

  it('delivers the message as given, from the configured sender', async () => {
    const mailer = createMailer(config({ smtpUrl: catcher.url }), recordingLogger().log);
    try {
      const { messageId } = await mailer.send(message);
      const mail = await catcher.waitFor((m) => m.messageId === messageId);
      expectSameMessage(mail, 'help@shop.example');

      await mailer.send({ ...message, to: 'kati@example.com', subject: 'second', replyTo: 'sales@shop.example' });
      const second = await catcher.waitFor((m) => m.subject === 'second');
      expect(addresses(second.to)).toEqual(['kati@example.com']);
      expect(addresses(second.replyTo)).toEqual(['sales@shop.example']);
    } finally {
      mailer.close();
    }
  });

  it('throws when the server refuses the message, and sends on the next try', async () => {
    const mailer = createMailer(config({ smtpUrl: catcher.url }), recordingLogger().log);
    try {
      catcher.failNext(1);
      await expect(mailer.send(message)).rejects.toThrow(/451/);
      expect(catcher.mails).toHaveLength(0);
      await mailer.send(message);
      expect(catcher.mails).toHaveLength(1);
    } finally {
      mailer.close();
    }
  });

  it('says an address the server refuses as no such mailbox is refused for good; any other refusal is an ordinary failure', async () => {
    const mailer = createMailer(config({ smtpUrl: catcher.url }), recordingLogger().log);
    const refusedWith = async (reply: string, to: string[] = ['gone@example.com']) => {
      catcher.refuseRecipient(to[0]!, reply);
      return mailer.send({ ...message, to }).then(
        () => 'sent',
        (error: unknown) => error,
      );
    };
    try {
      for (const reply of [
        '550 5.1.1 No such user',
        '550 5.1.2 Host unknown',
        '553 5.1.3 Bad address syntax',
        '550 5.2.1 Mailbox disabled',
        '556 5.1.10 Null MX',
      ]) {
        const error = await refusedWith(reply, [`for-good.${reply.slice(4, 11).replace(/\W/g, '')}@example.com`]);
        expect(error, reply).toBeInstanceOf(RefusedForGood);
        expect((error as RefusedForGood).result).toBe('refused: no such mailbox');
        expect((error as Error).message).toContain(reply.slice(0, 3));
      }
      // Relaying or policy refusals, a bare 550 and a temporary refusal: the shop's settings or a busy server, retried.
      for (const reply of [
        '550 5.7.1 Relaying denied',
        '550 Requested action not taken',
        '450 4.2.1 Mailbox busy',
        '554 5.7.1 Sender blocked',
      ]) {
        const error = await refusedWith(reply, [`retried.${reply.slice(0, 3)}.${reply.slice(4, 9).replace(/\W/g, '')}@example.com`]);
        expect(error, reply).toBeInstanceOf(Error);
        expect(error, reply).not.toBeInstanceOf(RefusedForGood);
      }
      // The server's answer names the address: the error (a job's last error, kept for weeks) does not.
      const named = await refusedWith('550 5.1.1 <Named.Person@example.com>: Recipient address rejected: User unknown', [
        'named.person@example.com',
      ]);
      expect((named as Error).message).toBe('550 5.1.1 <address>: Recipient address rejected: User unknown');
      const retried = await refusedWith('450 4.2.0 <busy.person@example.com>: Recipient address rejected: Greylisted', [
        'busy.person@example.com',
      ]);
      expect((retried as Error).message).toBe(
        "Can't send mail - all recipients were rejected: 450 4.2.0 <address>: Recipient address rejected: Greylisted",
      );
      // One of two refused for good: the other was sent to, so the mail is sent (a retry would mail them twice).
      expect(await refusedWith('550 5.1.1 No such user', ['half.gone@example.com', 'half.here@example.com'])).toBe('sent');
      expect(addresses(catcher.mails.at(-1)?.to)).toEqual(['half.gone@example.com', 'half.here@example.com']);
      expect(catcher.mails).toHaveLength(1);
    } finally {
      mailer.close();
    }
  });

  it('throws when no server listens, every time (no connection slot is kept by a failed connect), and sends when it is back', async () => {
    const closed = await startSmtpCatcher();
    await closed.close();
    const mailer = createMailer(config({ smtpUrl: closed.url, smtpMaxConnections: 1 }), recordingLogger().log);
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) await expect(mailer.send(message)).rejects.toThrow(/ECONNREFUSED/);
      const back = await startSmtpCatcher({ port: Number(new URL(closed.url).port) });
      try {
        await mailer.send({ ...message, subject: 'back' });
        expect(back.mails.map((mail) => mail.subject)).toEqual(['back']);
      } finally {
        await back.close();
      }
    } finally {
      mailer.close();
    }
  });
});

describe("the SMTP mailer's connections", () => {
  const catchers: SmtpCatcher[] = [];
  const catcher = async (options?: Parameters<typeof startSmtpCatcher>[0]) => {
    const started = await startSmtpCatcher(options);
    catchers.push(started);
    return started;
  };
  afterAll(() => Promise.all(catchers.map((started) => started.close())));

  it('sends a burst of mails over the connections it keeps, not one each', async () => {
    const server = await catcher();
    const mailer = createMailer(config({ smtpUrl: server.url, smtpMaxConnections: 2 }), recordingLogger().log);
    try {
      await Promise.all(Array.from({ length: 12 }, (_, n) => mailer.send({ ...message, subject: `burst ${n}` })));
      expect(server.mails).toHaveLength(12);
      expect(server.connections()).toBeLessThanOrEqual(2);
      await mailer.send({ ...message, subject: 'after the burst' });
      expect(server.connections()).toBeLessThanOrEqual(2);
    } finally {
      mailer.close();
    }
  });

  it("keeps its own connection settings over the same options in SMTP_URL's query, and the URL's others", async () => {
    const server = await catcher();
    const url = `${server.url}&maxConnections=20&maxMessages=1&maxRequeues=5`;
    const mailer = createMailer(config({ smtpUrl: url, smtpMaxConnections: 1 }), recordingLogger().log);
    try {
      await Promise.all(Array.from({ length: 6 }, (_, n) => mailer.send({ ...message, subject: `burst ${n}` })));
      expect(server.mails).toHaveLength(6);
      // One connection for all six; with the URL's settings, six (one a mail, up to 20 at once).
      expect(server.connections()).toBe(1);
    } finally {
      mailer.close();
    }
  });

  it('opens another connection after so many mails on one (SMTP_MESSAGES_PER_CONNECTION)', async () => {
    const server = await catcher();
    const mailer = createMailer(
      config({ smtpUrl: server.url, smtpMaxConnections: 1, smtpMessagesPerConnection: 3 }),
      recordingLogger().log,
    );
    try {
      for (let n = 0; n < 7; n += 1) await mailer.send({ ...message, subject: `mail ${n}` });
      expect(server.mails).toHaveLength(7);
      expect(server.connections()).toBe(3);
    } finally {
      mailer.close();
    }
  });

  it('connects again when the server closed a connection that sat idle', async () => {
    const server = await catcher();
    const mailer = createMailer(config({ smtpUrl: server.url, smtpMaxConnections: 1 }), recordingLogger().log);
    try {
      await mailer.send({ ...message, subject: 'before' });
      server.dropIdle();
      await setTimeout(100);
      // Had the mailer not yet read the server's close (a stalled test process), this mail would
      // meet the closed connection and fail, as the job's attempt would; its retry opens another.
      const after = () => mailer.send({ ...message, subject: 'after' });
      await after().catch(after);
      expect(server.mails.map((mail) => mail.subject)).toEqual(['before', 'after']);
      expect(server.connections()).toBe(2);
    } finally {
      mailer.close();
    }
  });

  it('fails a send whose connection is cut under it (the job tries again), and sends the next mail on a new connection', async () => {
    const server = await catcher();
    const mailer = createMailer(config({ smtpUrl: server.url, smtpMaxConnections: 1 }), recordingLogger().log);
    try {
      server.dropNext(1);
      await expect(mailer.send({ ...message, subject: 'cut' })).rejects.toThrow();
      await mailer.send({ ...message, subject: 'next' });
      expect(server.mails.map((mail) => mail.subject)).toEqual(['next']);
      expect(server.connections()).toBe(2);
    } finally {
      mailer.close();
    }
  });

  it('sends at most SMTP_MAILS_PER_SECOND mails in a second, holding the rest back', async () => {
    const server = await catcher();
    const mailer = createMailer(config({ smtpUrl: server.url, smtpMaxConnections: 2, smtpMailsPerSecond: 3 }), recordingLogger().log);
    try {
      const started = performance.now();
      const sentAfter = await Promise.all(
        Array.from({ length: 7 }, (_, n) => mailer.send({ ...message, subject: `rated ${n}` }).then(() => performance.now() - started)),
      );
      sentAfter.sort((a, b) => a - b);
      expect(server.mails).toHaveLength(7);
      // Three in the first second, three in the next, the seventh in the third (a little slack for timers).
      expect(sentAfter[3]).toBeGreaterThanOrEqual(950);
      expect(sentAfter[6]).toBeGreaterThanOrEqual(1950);
    } finally {
      mailer.close();
    }
  });

  it('says so when the server closes the connection without a word', async () => {
    const mute = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const { port } = mute.address() as AddressInfo;
    const mailer = createMailer(config({ smtpUrl: `smtp://127.0.0.1:${port}` }), recordingLogger().log);
    try {
      await expect(mailer.send(message)).rejects.toThrow('the mail server closed the connection before it took the mail');
    } finally {
      mailer.close();
      await new Promise((resolve) => mute.close(resolve));
    }
  });

  it.each(['smtps', 'starttls'] as const)('speaks TLS over the connection it made (%s)', async (tls) => {
    const server = await catcher({ tls });
    const mailer = createMailer(config({ smtpUrl: server.url }), recordingLogger().log);
    try {
      await Promise.all([1, 2, 3].map((n) => mailer.send({ ...message, subject: `${tls} ${n}` })));
      expect(server.mails.map((mail) => mail.subject).sort()).toEqual([1, 2, 3].map((n) => `${tls} ${n}`));
      expect(server.secureSessions()).toBe(server.connections());
    } finally {
      mailer.close();
    }
  });
});

describe('the file mailer (no SMTP_URL)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'storefront-mail-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes a .eml file that parses back to the same message, and logs where it went', async () => {
    const { log, lines } = recordingLogger();
    const target = join(dir, 'nested', 'mail');
    const mailer = createMailer(config({ dir: target, replyTo: undefined }), log);
    const { messageId } = await mailer.send({ ...message, replyTo: 'sales@shop.example' });
    mailer.close();

    const files = await readdir(target);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d+-[A-Za-z0-9._@-]+\.eml$/);
    const file = join(target, files[0]!);
    const mail = await simpleParser(await readFile(file));
    expect(mail.messageId).toBe(messageId);
    expectSameMessage(mail, 'sales@shop.example');
    expect(lines).toEqual([
      { level: 'info', obj: { to: message.to, subject: message.subject, file }, msg: expect.stringContaining('file') },
    ]);
  });
});
