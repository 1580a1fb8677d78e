import type { JWTPayload } from 'jose';
import { normaliseEmail } from '../../infra/email-address.js';
import { hashToken } from '../../infra/tokens.js';
import type { AuthRecordTable, SocialProvider } from './social.tables.js';

/** What a provider tells us about the person, after every check passed. */
export interface ProviderIdentity {
  provider: SocialProvider;
  subject: string;
  email: string | null;
  /** Whether the provider vouches that the person controls the email. */
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
}

export interface RedirectStart {
  redirectUri: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

export interface RedirectFinish {
  /** The request that came back: the URL (GET) or a Request carrying the form (Apple's POST). */
  callback: URL | Request;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Apple's `user` form field, sent on the first authorization only. */
  appleUser?: string;
}

/** A native app's token, checked: who it is, and, for an ID token, what makes it single-use. */
export interface NativeVerification {
  identity: ProviderIdentity;
  /** Set for ID tokens (JWTs): the token's id and when it expires; an access token (Facebook) has none. */
  singleUse?: TokenUse;
}

export interface TokenUse {
  /** The `jti` claim, or the SHA-256 of the token's signed part when it has none; compared, never shown. */
  id: string;
  /** Unix milliseconds of the token's `exp`. */
  expiresAt: number;
}

/**
 * What makes a verified ID token single-use. Without a `jti` (Apple's tokens), the signed part
 * (header and claims) stands for the token, not the whole text: the signature can be written
 * differently and still verify (spare bits in its last base64url character; ECDSA's s or n - s).
 */
export function idTokenUse(payload: JWTPayload, token: string): TokenUse {
  const signedPart = token.slice(0, token.lastIndexOf('.'));
  const id = typeof payload.jti === 'string' && payload.jti !== '' ? `jti:${payload.jti}` : `signed:${hashToken(signedPart)}`;
  return { id, expiresAt: Number(payload.exp) * 1000 };
}

export interface SocialProviderClient {
  name: SocialProvider;
  authorizationUrl(start: RedirectStart): Promise<URL>;
  finishRedirect(finish: RedirectFinish): Promise<ProviderIdentity>;
  /** Checks a token a native app got from the provider's SDK for the user `id` (and the `nonce`, when the app sends one). */
  verifyNativeToken(id: string, token: string, nonce?: string): Promise<NativeVerification>;
}

/**
 * The provider could not be reached, timed out or answered with a server error: nothing was decided
 * about the user, so the caller is told to try again later (503, or the error page's
 * `provider_unavailable`), never that the sign-in failed.
 */
export class ProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
  }
}

/** Whether an error is the network's or the provider's server's rather than a verdict on a token. */
export function isUnreachable(error: unknown, depth = 0): boolean {
  if (error instanceof ProviderUnavailableError) return true;
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { name, code, status, cause } = error as { name?: unknown; code?: unknown; status?: unknown; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ERR_JWKS_TIMEOUT') return true;
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return true;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|UND_ERR_)/.test(code)) return true;
  if (typeof status === 'number' && status >= 500) return true;
  return cause !== undefined && cause !== error && isUnreachable(cause, depth + 1);
}

/** Whether a parsed JSON answer is an object (not null, an array, a number, a text or a boolean). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A provider refused or a check failed; `reason` goes to the error page. */
export class SocialAuthError extends Error {
  constructor(
    readonly reason: 'provider_refused' | 'verification_failed' | 'state_mismatch',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SocialAuthError';
  }
}

/**
 * A provider's name as a one-line text (src/http/text.ts): each run of control characters (a line
 * break, an escape) becomes a space, as the name goes into mails and exports; null when blank.
 */
export function nameOrNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const name = value.replace(/\p{Cc}+/gu, ' ').trim();
  return name === '' ? null : name.slice(0, 100);
}

/**
 * A provider's email as every address is stored and compared (trimmed, lower-cased: normaliseEmail);
 * null when there is none, or only spaces, or when it is longer than an address can be (254
 * characters, the width of every email column): no mail reaches it, and kept it was a 500 on PostgreSQL.
 */
export function emailOrNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = normaliseEmail(value);
  return email === '' || [...email].length > EMAIL_MAX ? null : email;
}

const EMAIL_MAX = 254;
/** OpenID Connect: a subject is at most 255 ASCII characters; social_auth_record.subject is varchar(255). */
const SUBJECT_MAX = 255;

/** The provider's id of the person; a provider naming none, or a longer one than its protocol allows, vouched for nobody. */
export function subjectOf(provider: SocialProvider, value: unknown): string {
  if (typeof value !== 'string' || value === '' || [...value].length > SUBJECT_MAX)
    throw new SocialAuthError(
      'verification_failed',
      `${provider}: the token's subject is missing or longer than ${SUBJECT_MAX} characters`,
    );
  return value;
}

/** The identity an authentication record keeps. */
export function identityOf(
  record: Pick<AuthRecordTable, 'provider' | 'subject' | 'email' | 'first_name' | 'last_name'> & { email_verified: unknown },
): ProviderIdentity {
  return {
    provider: record.provider,
    subject: record.subject,
    email: record.email,
    emailVerified: Boolean(record.email_verified),
    firstName: record.first_name,
    lastName: record.last_name,
  };
}
