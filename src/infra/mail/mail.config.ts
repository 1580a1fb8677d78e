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
  for (const address of config.backofficeEmails) {
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) env.problem(`BACKOFFICE_EMAILS entries must be email addresses, got "${address}"`);
  }
  return config;
}
