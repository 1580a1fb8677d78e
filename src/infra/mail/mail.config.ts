import type { EnvReader } from '../env.js';

/** The `mail` section of the configuration. */
export interface MailConfig {
  /** nodemailer SMTP URL; without it mails are written as .eml files to `dir`. */
  smtpUrl: string | undefined;
  from: string;
  replyTo: string | undefined;
  dir: string;
  /** Back-office addresses told about business and wholesale registrations. */
  backofficeEmails: string[];
}

export function readMailConfig(env: EnvReader): MailConfig {
  const config: MailConfig = {
    smtpUrl: env.optional('SMTP_URL'),
    from: env.read('MAIL_FROM', 'Raamatupood <no-reply@localhost>'),
    replyTo: env.optional('MAIL_REPLY_TO'),
    dir: env.read('MAIL_DIR', './data/mail'),
    backofficeEmails: env.list('BACKOFFICE_EMAILS'),
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
