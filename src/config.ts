import { API_DOCS_MODES, type ApiDocsMode } from './http/api-docs-mode.js';
import { readTrustProxy, type TrustProxy } from './http/trust-proxy.js';
import { LANGUAGES, type Language } from './i18n/index.js';
import { ConfigError } from './infra/config-error.js';
import { envReader, type Env, type EnvReader } from './infra/env.js';
import { LOG_FORMATS, type LogFormat } from './infra/log-format.js';
import { readJobsConfig, type JobsConfig } from './infra/jobs/jobs.config.js';
import { readMailConfig, type MailConfig } from './infra/mail/mail.config.js';
import { readFileStoreConfig, type FileStoreConfig } from './infra/file-store/file-store.config.js';
import type { RateLimit } from './infra/rate-limit.js';
import { readPasswordHashConcurrency } from './infra/passwords.config.js';
// The sections' own files rather than the modules' index: reading the environment must not load every
// module's routes (and Fastify), or each CLI command would pay for them at start.
import { readAccountsConfig, readAuthRateLimits, type AccountsSection, type AuthRateLimits } from './modules/accounts/accounts.config.js';
import { readBackInStockConfig, type BackInStockSection } from './modules/back-in-stock/back-in-stock.config.js';
import { readIntegrationsConfig, type IntegrationsSection } from './modules/integrations/integrations.config.js';
import { readContactConfig, type ContactSection } from './modules/contact/contact.config.js';
import { readBasketConfig, type BasketSection } from './modules/basket/basket.config.js';
import { readGiftCardsConfig, type GiftCardsSection } from './modules/gift-cards/gift-cards.config.js';
import { readCtrConfig, type CtrSection } from './modules/ctr/ctr.config.js';
import { readBlogConfig, type BlogSection } from './modules/blog/blog.config.js';
import { readSubscriptionsConfig, type SubscriptionsSection } from './modules/subscriptions/subscriptions.config.js';
import { readCatalogueConfig, type CatalogueConfig } from './modules/catalogue/catalogue.config.js';
import { readDataExportConfig, type ExportSettings } from './modules/data-export/data-export.config.js';
import { readEveryPayConfig, type EveryPayConfig } from './modules/payments/everypay/everypay.config.js';
import { readConversionsConfig, type ConversionsConfig } from './modules/marketing/marketing.config.js';
import { readNewsletterConfig, type NewsletterSection } from './modules/newsletter/newsletter.config.js';
import { readTestGatewayConfig, type TestGatewaySetting } from './modules/payments/test-gateway/test-gateway.config.js';
import { readSearchConfig, type SearchSection } from './modules/search/search.config.js';
import { readMetricsConfig, type MetricsConfig } from './modules/metrics/metrics.config.js';
import { readTrackingConfig, type TrackingSection } from './modules/tracking/tracking.config.js';
import { readSocialConfig, type SocialSection } from './modules/social/social.config.js';
import { readOrdersConfig, type OrdersSection } from './modules/orders/orders.config.js';
import { readDownloadsConfig, type DownloadsSection } from './modules/downloads/downloads.config.js';
import { readWishlistConfig, type WishlistSection } from './modules/wishlist/wishlist.config.js';
import { STORE_CODES, type StoreCode } from './modules/store/store-codes.js';

// The store module owns the list of stores; re-exported for the configuration's readers.
export { STORE_CODES, type StoreCode };
// Defined in infra, so that the database layer can refuse a setting too (db/sqlite-file.ts).
export { ConfigError };

// The whole configuration: the process's own settings here, and each section as the module (or
// the piece of infrastructure) that reads it declares and reads it (`<m>.config.ts`).

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config extends CatalogueConfig {
  port: number;
  host: string;
  databaseUrl: string;
  /** A PostgreSQL streaming replica for catalogue, search, content and export reads (docs/deployment.md). */
  replica: ReplicaConfig | undefined;
  /** SQLite: worker threads that run the slow reads (lists, search, exports) off the event loop; 0: none. */
  sqliteReadWorkers: number;
  /** PostgreSQL: prepared queries as named statements, planned once per connection (off for a pooler that cannot keep them). */
  databasePreparedStatements: boolean;
  /** PostgreSQL: how long opening a connection may take before the statement waiting for it fails. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL `storefront migrate`: how long a migration's statement waits for a lock before it rolls back (0: waits), and its retries. */
  migrateLockTimeoutMs: number;
  migrateLockRetries: number;
  /** CPU time (ms) of request starts per turn of the event loop before the rest wait a turn (http/turn-budget.ts); 0: no gate. */
  httpTurnBudgetMs: number;
  /** After SIGTERM: how long an API process keeps answering, its readiness check saying it is stopping, before it closes. */
  shutdownDrainMs: number;
  /** Password hashes (argon2id) the process computes at once; the others wait in a queue (infra/passwords.ts). */
  passwordHashConcurrency: number;
  basePath: string;
  dataExportPath: string;
  corsOrigins: string[];
  defaultStore: StoreCode;
  defaultLanguage: Language;
  logLevel: LogLevel;
  /** LOG_FORMAT: JSON lines, readable lines, or (auto) readable on a terminal only. */
  logFormat: LogFormat;
  /** How long a process may serve store settings (lock, active, languages) before reading them again. */
  storeCacheTtlMs: number;
  /** Which proxies in front may tell the client address (X-Forwarded-For): none, a hop count or their addresses. */
  trustProxy: TrustProxy;
  /** Wrong credentials (order checksums, download tokens) an address may present in links before it is refused (infra/wrong-guesses.ts). */
  linkGuessesPerIp: RateLimit;
  /** Who is served the API documents: everyone, operators (and export users for theirs), or nobody. */
  apiDocs: ApiDocsMode;
  mail: MailConfig;
  jobs: JobsConfig;
  accounts: AccountsSection;
  conversions: ConversionsConfig;
  rateLimits: AuthRateLimits;
  social: SocialSection;
  orders: OrdersSection;
  newsletter: NewsletterSection;
  /** Where downloadable files are kept (FILE_STORE_DIR). */
  fileStore: FileStoreConfig;
  downloads: DownloadsSection;
  dataExport: ExportSettings;
  search: SearchSection;
  tracking: TrackingSection;
  backInStock: BackInStockSection;
  wishlist: WishlistSection;
  integrations: IntegrationsSection;
  contact: ContactSection;
  basket: BasketSection;
  giftCards: GiftCardsSection;
  ctr: CtrSection;
  blog: BlogSection;
  subscriptions: SubscriptionsSection;
  /** EveryPay card and bank payments; undefined (off) without its credentials. */
  everypay: EveryPayConfig | undefined;
  /** TEST_GATEWAY: the simulated payment page; `with-demo` (unset) is resolved by `serve`. */
  testGateway: TestGatewaySetting;
  /** Where GET /metrics is served: its own listener, the API behind a token, or nowhere. */
  metrics: MetricsConfig;
}

export interface ReplicaConfig {
  url: string;
  /** Past this much replay lag every read goes to the primary. */
  maxLagMs: number;
  /** How long a caller's reads stay on the primary after the caller wrote. */
  stickyMs: number;
}

/** Reads the whole configuration from the environment and reports every bad value at once. */
export function loadConfig(env: Env = process.env): Config {
  const { reader, problems } = envReader(env);

  const databaseUrl = reader.read('DATABASE_URL', 'sqlite:./data/storefront.db');
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be sqlite:<file>, sqlite::memory: or postgres://..., got ${shownUrl(databaseUrl)}`);
  } else if (/^postgres/.test(databaseUrl) && !isUrl(databaseUrl)) {
    problems.push(`DATABASE_URL ${NOT_A_URL}`);
  }

  const replica = readReplicaConfig(reader, databaseUrl, problems);

  const corsOrigins = reader.list('CORS_ORIGINS');
  for (const origin of corsOrigins) {
    if (!isOrigin(origin)) problems.push(`CORS_ORIGINS entries must be origins like https://shop.example, got "${origin}"`);
  }

  const config: Config = {
    port: reader.integer('PORT', 3000, 0, 65535),
    host: reader.read('HOST', '127.0.0.1'),
    databaseUrl,
    replica,
    sqliteReadWorkers: reader.integer('SQLITE_READ_WORKERS', 2, 0, 16),
    databasePreparedStatements: reader.oneOf('DATABASE_PREPARED_STATEMENTS', 'on', ['on', 'off']) === 'on',
    databaseConnectTimeoutMs: reader.integer('DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    migrateLockTimeoutMs: reader.integer('MIGRATE_LOCK_TIMEOUT_MS', 5000, 0, 600_000),
    migrateLockRetries: reader.integer('MIGRATE_LOCK_RETRIES', 3, 0, 100),
    httpTurnBudgetMs: reader.integer('HTTP_TURN_BUDGET_MS', 2, 0, 1000),
    shutdownDrainMs: reader.integer('SHUTDOWN_DRAIN_MS', 0, 0, 600_000),
    passwordHashConcurrency: readPasswordHashConcurrency(reader),
    basePath: reader.pathPrefix('BASE_PATH', ''),
    dataExportPath: reader.pathPrefix('DATA_EXPORT_PATH', '/export'),
    corsOrigins,
    defaultStore: reader.oneOf('DEFAULT_STORE', 'WEB', STORE_CODES),
    defaultLanguage: reader.oneOf('DEFAULT_LANGUAGE', 'et', LANGUAGES),
    logLevel: reader.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    logFormat: reader.oneOf('LOG_FORMAT', 'auto', LOG_FORMATS),
    storeCacheTtlMs: reader.integer('STORE_CACHE_TTL_MS', 1000, 0, 60_000),
    ...readCatalogueConfig(reader),
    trustProxy: readTrustProxy(reader),
    linkGuessesPerIp: reader.rateLimit('LINK_GUESS_RATE_LIMIT_PER_IP', '100/1h'),
    apiDocs: reader.oneOf('API_DOCS', 'public', API_DOCS_MODES),
    mail: readMailConfig(reader),
    jobs: readJobsConfig(reader),
    accounts: readAccountsConfig(reader),
    conversions: readConversionsConfig(reader),
    rateLimits: readAuthRateLimits(reader),
    social: readSocialConfig(reader),
    orders: readOrdersConfig(reader),
    newsletter: readNewsletterConfig(reader),
    fileStore: readFileStoreConfig(reader),
    downloads: readDownloadsConfig(reader),
    dataExport: readDataExportConfig(reader),
    search: readSearchConfig(reader),
    tracking: readTrackingConfig(reader),
    backInStock: readBackInStockConfig(reader),
    wishlist: readWishlistConfig(reader),
    integrations: readIntegrationsConfig(reader),
    contact: readContactConfig(reader),
    basket: readBasketConfig(reader),
    giftCards: readGiftCardsConfig(reader),
    ctr: readCtrConfig(reader),
    blog: readBlogConfig(reader),
    subscriptions: readSubscriptionsConfig(reader),
    everypay: readEveryPayConfig(reader),
    testGateway: readTestGatewayConfig(reader),
    metrics: readMetricsConfig(reader),
  };
  if (config.dataExportPath === '' || config.dataExportPath === config.basePath) {
    problems.push('DATA_EXPORT_PATH must be a path prefix of its own, different from BASE_PATH');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function readReplicaConfig(reader: EnvReader, databaseUrl: string, problems: string[]): ReplicaConfig | undefined {
  const url = reader.optional('DATABASE_REPLICA_URL');
  const maxLagMs = reader.integer('DATABASE_REPLICA_MAX_LAG_MS', 1000, 0, 600_000);
  const stickyMs = reader.integer('DATABASE_REPLICA_STICKY_MS', 5000, 0, 600_000);
  if (url === undefined || url === '') return undefined;
  if (!/^postgres(ql)?:\/\/.+/.test(url) || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`DATABASE_REPLICA_URL must be a postgres://... replica of a PostgreSQL DATABASE_URL, got ${shownUrl(url)}`);
    return undefined;
  }
  if (!isUrl(url)) {
    problems.push(`DATABASE_REPLICA_URL ${NOT_A_URL}`);
    return undefined;
  }
  return { url, maxLagMs, stickyMs };
}

// A database URL may carry a password: a bad one is described, never shown (a typo in the scheme
// printed it to the terminal and into the logs of whatever starts the process).
const NOT_A_URL =
  'is not a URL the driver can read (a port up to 65535; "@", ":" and "/" of a user or password percent-encoded, e.g. %40 for @); its value is not shown: it may hold a password';

/** A database URL as a configuration error shows it: without a password when it may hold one. */
function shownUrl(value: string): string {
  // Any '@': a mistyped scheme or a missing one (user:pw@host/db) still carries the password.
  return value.includes('@') ? '(a URL with a user or password, not shown)' : `"${value}"`;
}

/**
 * Whether a postgres:// URL parses as the driver (pg-connection-string) parses it: Node's URL, which
 * refuses a port past 65535 or a second ":", after encoding spaces and stray "%", and again with a
 * stand-in host for a URL without one (`postgres://user@/db?host=/socket`).
 */
function isUrl(value: string): boolean {
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(value) ? encodeURI(value).replace(/%25(\d\d)/g, '%$1') : value;
  for (const candidate of [text, text.replace('@/', '@___DUMMY___/')]) {
    try {
      new URL(candidate, 'postgres://base');
      return true;
    } catch {
      // the next candidate
    }
  }
  return false;
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}
