import type { EnvReader } from '../env.js';
import { BOUNCE_LOCAL_PART_MAX } from './bounces.js';

/** The `mail` section of the configuration. */
export interface MailConfig {
  /** nodemailer SMTP URL; without it mails are written as .eml files to `dir`. */
  smtpUrl: string | undefined;
  /** The most connections the worker's mailer keeps open to the server at once. */
  smtpMaxConnections: number;
  /** Mails sent over one connection before it is closed and another opened. */
  smtpMessagesPerConnection: number;
  /** The most mails the worker's mailer sends in a second (a provider's sending rate), or 0: no limit. */
  smtpMailsPerSecond: number;
  from: string;
  replyTo: string | undefined;
  dir: string;
  /** Back-office addresses told about business and wholesale registrations. */
  backofficeEmails: string[];
  /** Where late bounces go (the envelope sender, tagged per recipient: bounces.ts); none: MAIL_FROM's address. */
  bounceAddress: string | undefined;
  /** The tags' key; none: one the service makes and keeps (app_secret). */
  bounceSecret: string | undefined;
}

export function readMailConfig(env: EnvReader): MailConfig {
  const config: MailConfig = {
    smtpUrl: env.optional('SMTP_URL'),
    smtpMaxConnections: env.integer('SMTP_MAX_CONNECTIONS', 4, 1, 50),
    smtpMessagesPerConnection: env.integer('SMTP_MESSAGES_PER_CONNECTION', 100, 1, 100_000),
    smtpMailsPerSecond: env.integer('SMTP_MAILS_PER_SECOND', 0, 0, 100_000),
    from: env.read('MAIL_FROM', 'Raamatupood <no-reply@localhost>'),
    replyTo: env.optional('MAIL_REPLY_TO'),
    dir: env.read('MAIL_DIR', './data/mail'),
    backofficeEmails: env.list('BACKOFFICE_EMAILS'),
    bounceAddress: env.optional('MAIL_BOUNCE_ADDRESS'),
    bounceSecret: env.optional('MAIL_BOUNCE_SECRET'),
  };
  // Checked here, not at the first mail: nodemailer reads a URL it cannot use (a host alone, such as
  // mail.example.com) as no server at all, and every mail would wait for its attempts on localhost.
  if (config.smtpUrl !== undefined && !isSmtpUrl(config.smtpUrl)) {
    env.problem(
      'SMTP_URL must be an smtp:// or smtps:// URL naming the mail server, e.g. smtps://user:pass@mail.example:465 (its value is not shown: it may hold a password)',
    );
  }
  for (const [name, value] of [
    ['MAIL_FROM', config.from],
    ['MAIL_REPLY_TO', config.replyTo],
  ] as const) {
    if (value !== undefined && !isMailbox(value)) {
      env.problem(`${name} must be an email address, or a name and one as "Raamatupood <no-reply@shop.example>", got "${value}"`);
    }
  }
  const bounce = config.bounceAddress === undefined ? undefined : /^([^\s@+<>"]+)@([^\s@<>"]+\.[^\s@<>"]+)$/.exec(config.bounceAddress);
  if (config.bounceAddress !== undefined && (!bounce || bounce[1]!.length > BOUNCE_LOCAL_PART_MAX)) {
    env.problem(
      `MAIL_BOUNCE_ADDRESS must be a plain address without "+" whose part before the @ has at most ${BOUNCE_LOCAL_PART_MAX} characters (a tag is added to it), e.g. bounces@shop.example, got "${config.bounceAddress}"`,
    );
  }
  if (config.bounceSecret !== undefined && config.bounceSecret.length < 32)
    env.problem('MAIL_BOUNCE_SECRET must be at least 32 characters');
  for (const address of config.backofficeEmails) {
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) env.problem(`BACKOFFICE_EMAILS entries must be email addresses, got "${address}"`);
  }
  return config;
}

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** `address@domain` or `Name <address@domain>`: what a mail server takes as a sender. */
function isMailbox(value: string): boolean {
  return /^[^\s<>@]+@[^\s<>@]+$/.test(value) || /^[^<>]*<[^\s<>@]+@[^\s<>@]+>$/.test(value);
}
