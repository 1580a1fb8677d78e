import type { AccountsConfig } from '../accounts/index.js';

// What the social module reads of the configuration, under the names src/config.ts gives them
// (app.ts passes its whole Config, which has these fields).

export interface OidcProviderConfig {
  clientId: string;
  /** The web client's secret (Google); Apple's is made from `privateKey`. */
  clientSecret: string | undefined;
  /** Client ids of the native apps whose ID tokens are accepted too. */
  extraAudiences: string[];
  issuer: string;
}

export interface AppleConfig extends OidcProviderConfig {
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM of the Sign in with Apple key; the client secret is an ES256 JWT signed with it. */
  privateKey: string;
}

export interface FacebookConfig {
  appId: string;
  appSecret: string;
  graphUrl: string;
  dialogUrl: string;
  /** Issuer and key set of Limited Login ID tokens (iOS). */
  limitedLoginIssuer: string;
  limitedLoginJwksUrl: string;
}

/** The `social` section: the providers that are configured and where their flows land. */
export interface SocialSection {
  /** Public base URL of this service (for the providers' redirect back), e.g. https://api.shop.example */
  publicUrl: string;
  /** Front-end paths after the store's front-end URL: where a finished or failed redirect flow lands. */
  loginPath: string;
  errorPath: string;
  google: OidcProviderConfig | undefined;
  facebook: FacebookConfig | undefined;
  apple: AppleConfig | undefined;
}

/** Social sign-in opens sessions and links identities like the accounts module, so it reads what that reads too. */
export interface SocialConfig extends AccountsConfig {
  social: SocialSection;
  /** The API's path prefix: the providers call back to PUBLIC_URL + basePath + /auth/external. */
  basePath: string;
}
