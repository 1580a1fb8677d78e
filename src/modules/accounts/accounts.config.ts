import type { EnvReader } from '../../infra/env.js';
import type { JobsConfig } from '../../infra/jobs/jobs.config.js';
import type { MailConfig } from '../../infra/mail/mail.config.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import { isStoreCode, STORE_CODES } from '../store/index.js';

/** The `accounts` section of the configuration. */
export interface AccountsSection {
  accessTokenTtlMs: number;
  verificationTokenTtlMs: number;
  resetTokenTtlMs: number;
  /** Front-end paths the mails link to, after the store's front-end URL. */
  verifyEmailPath: string;
  setNewPasswordPath: string;
  /** Salt of the previous system's SHA-512 password hashes, for imported users. */
  legacyPasswordSalt: string | undefined;
  /** Stores whose business registrations wait for the back office (`storefront business approve`). */
  businessApprovalStores: string[];
}

/** The `rateLimits` section of the configuration: the limits on signing in and registering. */
export interface AuthRateLimits {
  /** Requests to the account endpoints from one IP address. */
  authPerIp: RateLimit;
  /** Registration and reset requests for one email address. */
  authPerEmail: RateLimit;
  /** Failed logins for one email from one address: past it that address is refused for that email. */
  loginFailuresPerAddress: RateLimit;
  /**
   * Failed logins for one email from all addresses: past it every address that has failed for
   * that email is refused, and one that has not gets its attempts (the owner can always log in).
   */
  loginFailuresPerEmail: RateLimit;
}

/**
 * What the accounts module reads of the configuration, under the names src/config.ts gives them
 * (app.ts passes its whole Config, which has these fields).
 */
export interface AccountsConfig {
  accounts: AccountsSection;
  rateLimits: AuthRateLimits;
  jobs: Pick<JobsConfig, 'maxAttempts'>;
  /** The back office's addresses, told of business and wholesale registrations. */
  mail: Pick<MailConfig, 'backofficeEmails'>;
}

export function readAccountsConfig(env: EnvReader): AccountsSection {
  return {
    accessTokenTtlMs: env.duration('ACCESS_TOKEN_TTL', '30d'),
    verificationTokenTtlMs: env.duration('VERIFICATION_TOKEN_TTL', '7d'),
    resetTokenTtlMs: env.duration('RESET_TOKEN_TTL', '1h'),
    verifyEmailPath: env.urlPath('VERIFY_EMAIL_PATH', '/verify-email'),
    setNewPasswordPath: env.urlPath('SET_NEW_PASSWORD_PATH', '/set-new-password'),
    legacyPasswordSalt: env.optional('LEGACY_PASSWORD_SALT'),
    businessApprovalStores: readStoreList(env, 'BUSINESS_APPROVAL_STORES'),
  };
}

export function readAuthRateLimits(env: EnvReader): AuthRateLimits {
  return {
    authPerIp: env.rateLimit('AUTH_RATE_LIMIT_PER_IP', '30/1m'),
    authPerEmail: env.rateLimit('AUTH_RATE_LIMIT_PER_EMAIL', '10/15m'),
    loginFailuresPerAddress: env.rateLimit('LOGIN_FAILURES_PER_ADDRESS', '5/15m'),
    loginFailuresPerEmail: env.rateLimit('LOGIN_FAILURES_PER_EMAIL', '20/15m'),
  };
}

function readStoreList(env: EnvReader, name: string): string[] {
  const codes = env.list(name);
  for (const code of codes) {
    if (!isStoreCode(code)) env.problem(`${name} must list store codes (${STORE_CODES.join(', ')}), got "${code}"`);
  }
  return codes.filter(isStoreCode);
}
