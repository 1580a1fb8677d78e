import { mkdir, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { RefusedForGood } from '../jobs/refused-for-good.js';
import type { Logger } from '../logger.js';
import { mailsTotal } from '../metrics/process-metrics.js';
import { bounceSenderFor, NO_SUCH_MAILBOX_CODE } from './bounces.js';
import type { MailConfig } from './mail.config.js';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
  headers?: Record<string, string>;
}

/** The mail settings the mailer reads (of the `mail` section of the configuration). */
export type MailerConfig = Pick<
  MailConfig,
  'smtpUrl' | 'smtpMaxConnections' | 'smtpMessagesPerConnection' | 'smtpMailsPerSecond' | 'from' | 'replyTo' | 'dir' | 'bounceAddress'
>;

export interface Mailer {
  /**
   * Resolves once the server (or the .eml file) has the message; throws otherwise, so the job
   * retries, or RefusedForGood when the server refused every recipient's address as one that does
   * not exist, so the job ends there.
   */
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

/** What became of a mail's recipients, told to the refused-address book (refused-addresses.ts). */
export interface MailOutcomes {
  /** Every recipient of a mail the server refused as mailboxes that do not exist. */
  refused(recipients: string[]): Promise<void>;
  /** The recipient of a mail to one address that the server (or its file) accepted. */
  delivered(recipients: string[]): Promise<void>;
}

/** The message's recipients as a list (`to` is one address or several). */
const recipientsOf = (message: MailMessage): string[] => (Array.isArray(message.to) ? message.to : [message.to]);

/**
 * `bounceSecret`: the key of the envelope senders' tags (bounces.ts), read when the first mail goes;
 * with MAIL_BOUNCE_ADDRESS and without it the mails' envelope sender is MAIL_FROM's address.
 */
export function createMailer(config: MailerConfig, log: Logger, outcomes?: MailOutcomes, bounceSecret?: () => Promise<string>): Mailer {
  const envelopeSender = config.bounceAddress !== undefined && bounceSecret ? taggedSender(config.bounceAddress, bounceSecret) : undefined;
  const mailer =
    config.smtpUrl === undefined ? createFileMailer(config, log) : createSmtpMailer(config, config.smtpUrl, log, envelopeSender);
  return skippingInvalidRecipients(counted(outcomes ? reporting(mailer, outcomes) : mailer), log);
}

/**
 * Tells `outcomes` what became of each mail's recipients. A mail to several that was accepted tells
 * nothing: the server may have refused some of them (the mail went to the others).
 */
function reporting(mailer: Mailer, outcomes: MailOutcomes): Mailer {
  return {
    async send(message) {
      const recipients = recipientsOf(message);
      let sent: { messageId: string };
      try {
        sent = await mailer.send(message);
      } catch (error) {
        if (error instanceof RefusedForGood) await outcomes.refused(recipients);
        throw error;
      }
      if (recipients.length === 1) await outcomes.delivered(recipients);
      return sent;
    },
    close: () => mailer.close(),
  };
}

/** Counts what reached the server (or its file) and what did not, for /metrics; a dropped erased recipient is neither. */
function counted(mailer: Mailer): Mailer {
  return {
    async send(message) {
      try {
        const sent = await mailer.send(message);
        mailsTotal.inc({ result: 'sent' });
        return sent;
      } catch (error) {
        mailsTotal.inc({ result: error instanceof RefusedForGood ? 'refused' : 'failed' });
        throw error;
      }
    },
    close: () => mailer.close(),
  };
}

/** RFC 2606's `.invalid` top-level domain: what an erased person's address becomes (`erased-<id>@erased.invalid`). */
const isInvalidAddress = (address: string) => /\.invalid>?\s*$/i.test(address.trim());

/**
 * Never mails an `.invalid` address: a mail queued before the person was erased (an order's status
 * mail, a reset request) finds the erased placeholder where the address was, and is dropped here
 * instead of failing at the server and retrying until it is dead.
 */
function skippingInvalidRecipients(mailer: Mailer, log: Logger): Mailer {
  return {
    async send(message) {
      const recipients = recipientsOf(message).filter((to) => !isInvalidAddress(to));
      if (recipients.length === 0) {
        log.info({ subject: message.subject }, 'mail not sent: its recipient was erased');
        return { messageId: 'not-sent:erased-recipient' };
      }
      return mailer.send({ ...message, to: recipients });
    },
    close: () => mailer.close(),
  };
}

/** The envelope sender of a mail to one address: the bounce address tagged for it (the secret read once). */
function taggedSender(bounceAddress: string, bounceSecret: () => Promise<string>): (recipient: string) => Promise<string> {
  let secret: Promise<string> | undefined;
  return async (recipient) => {
    secret ??= bounceSecret().catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return bounceSenderFor(bounceAddress, await secret, recipient);
  };
}

function envelope(config: MailerConfig, message: MailMessage): Mail.Options {
  return {
    from: config.from,
    replyTo: message.replyTo ?? config.replyTo,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers: message.headers,
  };
}

function createSmtpMailer(
  config: MailerConfig,
  smtpUrl: string,
  log: Logger,
  envelopeSender?: (recipient: string) => Promise<string>,
): Mailer {
  // Pooled: a burst of mails (a restock's back-in-stock requests, the worker's JOB_CONCURRENCY
  // jobs at once) shares a few connections instead of a TCP and TLS handshake, a greeting and a
  // login for every mail, which is also what providers that cap connections ask for. A job must
  // not hang for minutes on a dead server. An idle connection ends after socketTimeout; one the
  // server closes is dropped and the next mail opens another.
  const options: SMTPPool.Options & { maxRequeues: number } = {
    // The URL's own settings (host, port, login, TLS), read here so that the settings below win:
    // given a `url`, nodemailer lets its query (`?maxConnections=`, `?maxRequeues=`) override them.
    ...parseConnectionUrl(smtpUrl),
    pool: true,
    maxConnections: config.smtpMaxConnections,
    maxMessages: config.smtpMessagesPerConnection,
    // A provider's sending rate (a new Amazon SES account: 14 a second): kept connections send
    // hundreds a second, and a burst over the rate comes back as temporary refusals, each a job's
    // failed attempt. The pool holds the next mail back instead (whole seconds, all connections).
    ...(config.smtpMailsPerSecond > 0 ? { rateLimit: config.smtpMailsPerSecond, rateDelta: 1000 } : {}),
    // A connection that closes under a message without an error fails that send too, and the job
    // tries again later: nodemailer's default sends it again on another connection, as often as
    // that happens and without telling us, and the server may have taken it before it closed.
    maxRequeues: 0,
    // Its connect is bounded by the greeting's timeout (connectWithoutDelay).
    getSocket: connectWithoutDelay,
    greetingTimeout: 15_000,
    socketTimeout: 20_000,
  };
  const transport = nodemailer.createTransport(new SMTPPool(options));
  transport.on('error', (err) => log.warn({ err }, 'mail transport error'));
  return {
    async send(message) {
      const options = envelope(config, message);
      // Tagged for one recipient only: a bounce names one address, and the tag must be that address's.
      const recipients = recipientsOf(message);
      if (envelopeSender && recipients.length === 1) {
        options.envelope = { from: await envelopeSender(recipients[0]!), to: recipients };
      }
      const info = await transport.sendMail(options).catch((error: Error) => {
        // What nodemailer says (with maxRequeues 0) when the server closed the connection without
        // an answer, e.g. at its greeting: nothing was retried, and the job's last_error says so.
        if (error.message.startsWith('Reached maximum number of retries')) {
          throw new Error('the mail server closed the connection before it took the mail', { cause: error });
        }
        if (addressesRefusedForGood(error)) {
          throw new RefusedForGood(withoutAddresses(refusalReplies(error)), 'refused: no such mailbox', { cause: error });
        }
        error.message = withoutAddresses(error.message);
        throw error;
      });
      // Some recipients taken and others refused: a retry would send the mail twice to the first.
      if (info.rejected.length > 0) {
        log.warn({ rejected: info.rejected, subject: message.subject, messageId: info.messageId }, 'mail server refused some recipients');
      }
      return { messageId: info.messageId };
    },
    close() {
      transport.close();
    },
  };
}

/**
 * Enhanced status codes (RFC 3463) with which a server refuses a recipient because the address
 * itself is no good: no such mailbox (5.1.1), no such domain (5.1.2), not an address (5.1.3), the
 * mailbox moved (5.1.6), a domain that takes no mail (5.1.10, RFC 7505) or a disabled mailbox
 * (5.2.1). Sending again changes nothing. Every other refusal is retried as before: a bare 550
 * without such a code, or 5.7.x, is as often the server's relaying or policy answer to the shop's
 * own settings or sending, which an operator mends and the retries then deliver.
 */
const NO_SUCH_MAILBOX = new RegExp(String.raw`^5\d\d[ -]${NO_SUCH_MAILBOX_CODE}\b`);

/**
 * The text with every email address in it (a server's answer often repeats the recipient's:
 * "550 5.1.1 <mari@example.com>: Recipient address rejected") made `<address>`. It becomes the
 * job's last error, which is kept for weeks and which an erasure of the person does not reach (it
 * finds a job by its payload).
 */
function withoutAddresses(text: string): string {
  return text.replace(/<?[^\s<>"',;:]+@[^\s<>"',;:]+>?/g, '<address>');
}

/** The server's answers to the refused recipients, each on one line: what the job's last error keeps. */
function refusalReplies(error: Error & { rejectedErrors?: Array<{ response?: unknown }> }): string {
  return (error.rejectedErrors ?? []).map((refusal) => String(refusal.response).replace(/\s+/g, ' ')).join('; ');
}

/** Whether the server refused every recipient of the message for an address that is no good (NO_SUCH_MAILBOX). */
function addressesRefusedForGood(error: Error & { command?: string; rejectedErrors?: Array<{ response?: unknown }> }): boolean {
  const refusals = error.rejectedErrors ?? [];
  return (
    error.command === 'RCPT TO' &&
    refusals.length > 0 &&
    refusals.every((refusal) => typeof refusal.response === 'string' && NO_SUCH_MAILBOX.test(refusal.response))
  );
}

/**
 * The connection to the mail server, with Nagle's algorithm off. nodemailer writes a message's
 * end and its next commands as small writes, each waiting for the server to acknowledge the one
 * before, which a server delays up to 40 ms: on a reused connection that was most of a mail's time
 * (loopback, bench/mail.ts: 22 mails a second on one connection, 270 without the delay).
 * nodemailer sets no such option, so the pool takes the socket from here and runs the SMTP
 * conversation, TLS included (smtps:// or STARTTLS), over it. Handed over while it still connects:
 * nodemailer must see a refused or failed connect as its own connection's error, since the pool
 * drops a connection only then; an error given back here instead left the pool's slot taken for
 * good, and with every slot taken no mail was ever sent again. A connect that hangs ends at the
 * greeting's timeout.
 */
function connectWithoutDelay(options: SMTPPool.Options, callback: (error: null, socketOptions: { connection: Socket }) => void): void {
  const port = Number(options.port) || (options.secure === true ? 465 : 587);
  callback(null, { connection: connect({ host: options.host, port, noDelay: true, keepAlive: true }) });
}

// Without a mail server (development, demos) mails land as .eml files that any mail client opens.
function createFileMailer(config: MailerConfig, log: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail(envelope(config, message));
      if (!Buffer.isBuffer(info.message)) throw new Error('the stream transport did not return the message as a buffer');
      await mkdir(config.dir, { recursive: true });
      const safeId = info.messageId.replace(/[^A-Za-z0-9._@-]+/g, '').slice(0, 120);
      const file = join(config.dir, `${Date.now()}-${safeId}.eml`);
      await writeFile(file, info.message);
      log.info({ to: message.to, subject: message.subject, file }, 'mail written to a file (no SMTP_URL)');
      return { messageId: info.messageId };
    },
    close() {
      transport.close();
    },
  };
}
