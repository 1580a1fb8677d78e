import type { RateLimit } from '../../infra/rate-limit.js';

/**
 * What the accounts module reads of the configuration, under the names src/config.ts gives them
 * (app.ts passes its whole Config, which has these fields).
 */
export interface AccountsConfig {
  accounts: {
    accessTokenTtlMs: number;
    verificationTokenTtlMs: number;
    resetTokenTtlMs: number;
    /** Front-end paths the mails link to, after the store's front-end URL. */
    verifyEmailPath: string;
    setNewPasswordPath: string;
    /** Salt of the previous system's SHA-512 password hashes, for imported users. */
    legacyPasswordSalt: string | undefined;
  };
  rateLimits: {
    /** Requests to the account endpoints from one IP address. */
    authPerIp: RateLimit;
    /** Attempts against one email address (login, registration, reset). */
    authPerEmail: RateLimit;
  };
  jobs: { maxAttempts: number };
  mail: {
    /** Without SMTP (development) the mails' links are logged. */
    smtpUrl: string | undefined;
    /** Back-office addresses told about business and wholesale registrations. */
    backofficeEmails: string[];
  };
}
