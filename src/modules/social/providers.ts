import type { SocialProvider } from './social.tables.js';

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

export interface SocialProviderClient {
  name: SocialProvider;
  authorizationUrl(start: RedirectStart): Promise<URL>;
  finishRedirect(finish: RedirectFinish): Promise<ProviderIdentity>;
  /** Checks a token a native app got from the provider's SDK for the user `id`. */
  verifyNativeToken(id: string, token: string, nonce?: string): Promise<ProviderIdentity>;
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

export function nameOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 100) : null;
}
