import { LANGUAGES, type Language } from './i18n/index.js';
import { STORE_CODES, type StoreCode } from './modules/store/index.js';

// The store module owns the list of stores; re-exported for the configuration's readers.
export { STORE_CODES, type StoreCode };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  basePath: string;
  dataExportPath: string;
  corsOrigins: string[];
  defaultStore: StoreCode;
  defaultLanguage: Language;
  logLevel: LogLevel;
  /** How long a process may serve store settings (lock, active, languages) before reading them again. */
  storeCacheTtlMs: number;
  /** How long a process may serve catalogue data (products, categories, guest answers) before reading them again. */
  catalogueCacheTtlMs: number;
  /** How long a process may reuse a product list's page order and total count (a big category costs a sort and a count). */
  catalogueListCacheTtlMs: number;
  /** Honour X-Forwarded-For from a proxy in front (client IPs for rate limits and logs). */
  trustProxy: boolean;
  mail: MailConfig;
  jobs: JobsConfig;
  accounts: AccountsConfig;
  conversions: ConversionsConfig;
  rateLimits: RateLimitConfig;
  social: SocialConfig;
  dataExport: DataExportConfig;
}

export interface DataExportConfig {
  /** Requests of one export user (every page and stream counts once). */
  rateLimitPerUser: RateLimit;
  /** Failed Basic authentications from one address before it gets 429 instead of a password check. */
  authFailuresPerIp: RateLimit;
  /** Session actions older than this are deleted by the hourly maintenance. */
  sessionActionRetentionDays: number;
  /** How long a total count (X-Pagination-Total-Count) is reused for the same collection and filter. */
  countCacheTtlMs: number;
}

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

export interface SocialConfig {
  /** Public base URL of this service (for the providers' redirect back), e.g. https://api.shop.example */
  publicUrl: string;
  /** Front-end paths after the store's front-end URL: where a finished or failed redirect flow lands. */
  loginPath: string;
  errorPath: string;
  google: OidcProviderConfig | undefined;
  facebook: FacebookConfig | undefined;
  apple: AppleConfig | undefined;
}

export interface MailConfig {
  /** nodemailer SMTP URL; without it mails are written as .eml files to `dir`. */
  smtpUrl: string | undefined;
  from: string;
  replyTo: string | undefined;
  dir: string;
  /** Back-office addresses told about business and wholesale registrations. */
  backofficeEmails: string[];
}

export interface JobsConfig {
  /** `inline`: `serve` runs a worker too; `off`: only `storefront worker` processes run jobs. */
  worker: 'inline' | 'off';
  pollIntervalMs: number;
  maxAttempts: number;
}

export interface AccountsConfig {
  accessTokenTtlMs: number;
  verificationTokenTtlMs: number;
  resetTokenTtlMs: number;
  /** Front-end paths the mails link to, after the store's front-end URL. */
  verifyEmailPath: string;
  setNewPasswordPath: string;
  /** Salt of the previous system's SHA-512 password hashes, for imported users. */
  legacyPasswordSalt: string | undefined;
}

export interface ConversionsConfig {
  url: string | undefined;
  pixelId: string | undefined;
  accessToken: string | undefined;
}

export interface RateLimit {
  max: number;
  windowMs: number;
}

export interface RateLimitConfig {
  /** Requests to the account endpoints from one IP address. */
  authPerIp: RateLimit;
  /** Attempts against one email address (login, registration, reset). */
  authPerEmail: RateLimit;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads the whole configuration from the environment and reports every bad value at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name, String(fallback));
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };

  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = read(name, fallback);
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  };

  const pathPrefix = (name: string, fallback: string): string => {
    const raw = read(name, fallback);
    if (raw === '' || raw === '/') return '';
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
      problems.push(`${name} must be empty or a path like /api/v1 (no trailing slash), got "${raw}"`);
      return fallback;
    }
    return raw;
  };

  const optional = (name: string): string | undefined => {
    const value = read(name, '');
    return value === '' ? undefined : value;
  };

  const list = (name: string): string[] =>
    read(name, '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');

  const duration = (name: string, fallback: string): number => {
    const raw = read(name, fallback);
    const ms = parseDuration(raw);
    if (ms === undefined || ms <= 0) {
      problems.push(`${name} must be a duration such as 90s, 15m, 1h or 30d (or whole seconds), got "${raw}"`);
      return parseDuration(fallback)!;
    }
    return ms;
  };

  const rate = (name: string, fallback: string): RateLimit => {
    const raw = read(name, fallback);
    const limit = parseRate(raw);
    if (limit === undefined) {
      problems.push(`${name} must be <count>/<duration> such as 30/1m, got "${raw}"`);
      return parseRate(fallback)!;
    }
    return limit;
  };

  const urlPath = (name: string, fallback: string): string => {
    const raw = read(name, fallback);
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
      problems.push(`${name} must be a path like ${fallback}, got "${raw}"`);
      return fallback;
    }
    return raw;
  };

  /** A provider is configured when its client id is set; then the rest it needs must be too. */
  function provider(prefix: string, defaultIssuer: string, needsSecret: boolean): OidcProviderConfig | undefined {
    const clientId = optional(`${prefix}_CLIENT_ID`);
    if (clientId === undefined) return undefined;
    const clientSecret = optional(`${prefix}_CLIENT_SECRET`);
    if (needsSecret && clientSecret === undefined) problems.push(`${prefix}_CLIENT_SECRET is required with ${prefix}_CLIENT_ID`);
    const issuer = read(`${prefix}_ISSUER`, defaultIssuer).replace(/\/+$/, '');
    if (!isHttpUrl(issuer)) problems.push(`${prefix}_ISSUER must be an http(s) URL, got "${issuer}"`);
    return { clientId, clientSecret, extraAudiences: list(`${prefix}_EXTRA_AUDIENCES`), issuer };
  }

  function apple(): AppleConfig | undefined {
    const base = provider('APPLE', 'https://appleid.apple.com', false);
    if (base === undefined) return undefined;
    const teamId = optional('APPLE_TEAM_ID');
    const keyId = optional('APPLE_KEY_ID');
    const privateKey = optional('APPLE_PRIVATE_KEY')?.replace(/\\n/g, '\n');
    for (const [name, value] of [['APPLE_TEAM_ID', teamId], ['APPLE_KEY_ID', keyId], ['APPLE_PRIVATE_KEY', privateKey]] as const) {
      if (value === undefined) problems.push(`${name} is required with APPLE_CLIENT_ID`);
    }
    if (privateKey !== undefined && !privateKey.includes('BEGIN PRIVATE KEY')) problems.push('APPLE_PRIVATE_KEY must be a PKCS#8 PEM key');
    return { ...base, teamId: teamId ?? '', keyId: keyId ?? '', privateKey: privateKey ?? '' };
  }

  function facebook(): FacebookConfig | undefined {
    const appId = optional('FACEBOOK_APP_ID');
    if (appId === undefined) return undefined;
    const appSecret = optional('FACEBOOK_APP_SECRET');
    if (appSecret === undefined) problems.push('FACEBOOK_APP_SECRET is required with FACEBOOK_APP_ID');
    const urls = {
      graphUrl: read('FACEBOOK_GRAPH_URL', 'https://graph.facebook.com/v19.0').replace(/\/+$/, ''),
      dialogUrl: read('FACEBOOK_DIALOG_URL', 'https://www.facebook.com/v19.0/dialog/oauth'),
      limitedLoginIssuer: read('FACEBOOK_LIMITED_LOGIN_ISSUER', 'https://www.facebook.com'),
      limitedLoginJwksUrl: read('FACEBOOK_LIMITED_LOGIN_JWKS_URL', 'https://limited.facebook.com/.well-known/oauth/openid/jwks/'),
    };
    for (const [name, value] of Object.entries(urls)) if (!isHttpUrl(value)) problems.push(`FACEBOOK ${name} must be an http(s) URL, got "${value}"`);
    return { appId, appSecret: appSecret ?? '', ...urls };
  }

  const databaseUrl = read('DATABASE_URL', 'sqlite:./data/storefront.db');
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be sqlite:<file>, sqlite::memory: or postgres://..., got "${databaseUrl}"`);
  }

  const corsOrigins = read('CORS_ORIGINS', '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of corsOrigins) {
    if (!isOrigin(origin)) problems.push(`CORS_ORIGINS entries must be origins like https://shop.example, got "${origin}"`);
  }

  const config: Config = {
    port: integer('PORT', 3000, 0, 65535),
    host: read('HOST', '127.0.0.1'),
    databaseUrl,
    basePath: pathPrefix('BASE_PATH', ''),
    dataExportPath: pathPrefix('DATA_EXPORT_PATH', '/export'),
    corsOrigins,
    defaultStore: oneOf('DEFAULT_STORE', 'WEB', STORE_CODES),
    defaultLanguage: oneOf('DEFAULT_LANGUAGE', 'et', LANGUAGES),
    logLevel: oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    storeCacheTtlMs: integer('STORE_CACHE_TTL_MS', 1000, 0, 60_000),
    catalogueCacheTtlMs: integer('CATALOGUE_CACHE_TTL_MS', 30_000, 0, 600_000),
    catalogueListCacheTtlMs: integer('CATALOGUE_LIST_CACHE_TTL_MS', 60_000, 0, 3_600_000),
    trustProxy: oneOf('TRUST_PROXY', 'false', ['true', 'false']) === 'true',
    mail: {
      smtpUrl: optional('SMTP_URL'),
      from: read('MAIL_FROM', 'Raamatupood <no-reply@localhost>'),
      replyTo: optional('MAIL_REPLY_TO'),
      dir: read('MAIL_DIR', './data/mail'),
      backofficeEmails: list('BACKOFFICE_EMAILS'),
    },
    jobs: {
      worker: oneOf('WORKER', 'inline', ['inline', 'off'] as const),
      pollIntervalMs: integer('JOB_POLL_INTERVAL_MS', 1000, 10, 600_000),
      maxAttempts: integer('JOB_MAX_ATTEMPTS', 8, 1, 100),
    },
    accounts: {
      accessTokenTtlMs: duration('ACCESS_TOKEN_TTL', '30d'),
      verificationTokenTtlMs: duration('VERIFICATION_TOKEN_TTL', '7d'),
      resetTokenTtlMs: duration('RESET_TOKEN_TTL', '1h'),
      verifyEmailPath: urlPath('VERIFY_EMAIL_PATH', '/verify-email'),
      setNewPasswordPath: urlPath('SET_NEW_PASSWORD_PATH', '/set-new-password'),
      legacyPasswordSalt: optional('LEGACY_PASSWORD_SALT'),
    },
    conversions: {
      url: optional('CONVERSIONS_API_URL'),
      pixelId: optional('CONVERSIONS_PIXEL_ID'),
      accessToken: optional('CONVERSIONS_ACCESS_TOKEN'),
    },
    rateLimits: {
      authPerIp: rate('AUTH_RATE_LIMIT_PER_IP', '30/1m'),
      authPerEmail: rate('AUTH_RATE_LIMIT_PER_EMAIL', '10/15m'),
    },
    social: {
      publicUrl: read('PUBLIC_URL', `http://127.0.0.1:${read('PORT', '3000')}`).replace(/\/+$/, ''),
      loginPath: urlPath('SOCIAL_LOGIN_PATH', '/social-login'),
      errorPath: urlPath('SOCIAL_ERROR_PATH', '/social-login-error'),
      google: provider('GOOGLE', 'https://accounts.google.com', true),
      facebook: facebook(),
      apple: apple(),
    },
    dataExport: {
      rateLimitPerUser: rate('DATA_EXPORT_RATE_LIMIT', '1200/1m'),
      authFailuresPerIp: rate('DATA_EXPORT_AUTH_FAILURES_PER_IP', '20/15m'),
      sessionActionRetentionDays: integer('SESSION_ACTION_RETENTION_DAYS', 365, 1, 36_500),
      countCacheTtlMs: integer('DATA_EXPORT_COUNT_CACHE_TTL_MS', 15_000, 0, 3_600_000),
    },
  };
  if (!isHttpUrl(config.social.publicUrl)) problems.push(`PUBLIC_URL must be an http(s) URL, got "${config.social.publicUrl}"`);
  if (config.conversions.url !== undefined && !isHttpUrl(config.conversions.url)) {
    problems.push(`CONVERSIONS_API_URL must be an http(s) URL, got "${config.conversions.url}"`);
  }
  for (const address of config.mail.backofficeEmails) {
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) problems.push(`BACKOFFICE_EMAILS entries must be email addresses, got "${address}"`);
  }
  if (config.dataExportPath === '' || config.dataExportPath === config.basePath) {
    problems.push('DATA_EXPORT_PATH must be a path prefix of its own, different from BASE_PATH');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "1h", "30d", or whole seconds ("3600"), in milliseconds. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_UNITS[match[2] || 's']!;
}

/** "30/1m": at most 30 in one minute. */
function parseRate(value: string): RateLimit | undefined {
  const [count = '', window = ''] = value.split('/', 2);
  const windowMs = parseDuration(window);
  if (!/^\d+$/.test(count) || Number(count) < 1 || windowMs === undefined || windowMs <= 0) return undefined;
  return { max: Number(count), windowMs };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}
