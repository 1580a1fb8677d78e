import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { registerApiDocs } from './http/api-docs.js';
import { registerEmptyJsonBodyTolerance } from './http/empty-json-body.js';
import { answerClientError, answerFrameworkError, BODY_LIMIT_BYTES, registerErrorHandling } from './http/error-handler.js';
import { errorBody } from './http/errors.js';
import { registerHeadRequests } from './http/head-requests.js';
import { registerUtf8JsonBodies } from './http/json-body.js';
import { lazyChildLoggerFactory } from './http/lazy-logger.js';
import { answerStart, attachStoreHook, registerRequestContext } from './http/request-context.js';
import { registerReadYourWrites } from './http/read-your-writes.js';
import { privateLogger, registerRequestLog } from './http/request-log.js';
import { registerRequestMetrics } from './http/request-metrics.js';
import { securityHeaders } from './http/security-headers.js';
import { gatedServerFactory } from './http/turn-budget.js';
import { trustProxyOption } from './http/trust-proxy.js';
import { serializerCompiler } from './http/serialization.js';
import { validatorCompiler } from './http/validation.js';
import { translate } from './i18n/index.js';
import { importKinds } from './import-kinds.js';
import { systemClock, type Clock } from './infra/clock.js';
import type { Lifecycle } from './infra/lifecycle.js';
import { createImporter } from './infra/import/index.js';
import { logDestination } from './infra/log-format.js';
import { setPasswordHashConcurrency } from './infra/passwords.js';
import { accountsRoutes } from './modules/accounts/index.js';
import { adminRoutes, authenticateOperator } from './modules/admin/index.js';
import { eventFeedRoutes, supplierRoutes } from './modules/integrations/index.js';
import { appConfigRoutes } from './modules/app-config/index.js';
import { backInStockRoutes } from './modules/back-in-stock/index.js';
import { basketRoutes } from './modules/basket/index.js';
import { blogRoutes } from './modules/blog/index.js';
import { catalogueRoutes, createCatalogue } from './modules/catalogue/index.js';
import { contentRoutes, existingBanners } from './modules/content/index.js';
import { companiesRoutes, companyOfAccount } from './modules/companies/index.js';
import { contactRoutes } from './modules/contact/index.js';
import { createCtrRecorder, ctrRoutes } from './modules/ctr/index.js';
import { countryRoutes } from './modules/country/index.js';
import { dataExportRoutes } from './modules/data-export/index.js';
import { newsletterRoutes } from './modules/newsletter/index.js';
import { downloadsRoutes, productFilesRoutes } from './modules/downloads/index.js';
import { createFileStore } from './infra/file-store/index.js';
import { configuredGateways, lookUpPauses, testGatewayRoutes } from './modules/payments/index.js';
import { adminOrdersRoutes, ordersRoutes } from './modules/orders/index.js';
import { gdprRoutes } from './modules/gdpr/index.js';
import { confirmedLoginEmailOf, profileRoutes, wantsBackInStockMails } from './modules/profile/index.js';
import { searchRoutes } from './modules/search/index.js';
import { siteRoutes } from './modules/site/index.js';
import { sitemapRoutes } from './modules/sitemap/index.js';
import { socialRoutes, takeOverProvenMailbox } from './modules/social/index.js';
import { cardTokensFor, subscriptionPayments, subscriptionsRoutes } from './modules/subscriptions/index.js';
import { createStoreCache, type StoreCache } from './modules/store/index.js';
import { createSessionActionRecorder, trackingRoutes, type SessionActionRecorder } from './modules/tracking/index.js';
import { wishlistRoutes } from './modules/wishlist/index.js';
import { giftCardsRoutes } from './modules/gift-cards/index.js';
import { metricsPlacement, metricsRoutes } from './modules/metrics/index.js';
// The modules' messages, registered with translate() (src/messages.ts).
import './messages.js';

export interface Infra {
  database: DatabaseHandle;
  /** Where action times come from; the system clock unless a test moves its own. */
  clock?: Clock;
  /** Where log lines go; standard output unless a test reads them. */
  logStream?: DestinationStream;
  /** Whether the process is stopping (set by the server on SIGTERM); never, unless given. */
  lifecycle?: Lifecycle;
}

// What several modules share; each module takes only the part it declares in its own deps type.
interface SharedDeps extends Infra {
  config: Config;
  stores: StoreCache;
  /** Buffered writer of session actions (views, wishlist and basket adds) for the data export. */
  sessionActions: SessionActionRecorder;
}

export type App = FastifyInstance;

// Every header a browser front-end reads besides the CORS-safelisted ones (Content-Type, Content-Length,
// Cache-Control...), which it sees anyway: a browser hides the rest from fetch(). The download ones let a
// front-end name the file it saves (Content-Disposition, also the GDPR export's) and resume it in ranges.
const EXPOSED_HEADERS = [
  'Accept-Ranges',
  'action-time',
  'is_active',
  'available_languages',
  'Content-Disposition',
  'Content-Language',
  'Content-Range',
  'ETag',
  'basket-token',
  'Link',
  'Retry-After',
  'x-request-id',
  'X-Pagination-Current-Page',
  'X-Pagination-Page-Count',
  'X-Pagination-Per-Page',
  'X-Pagination-Total-Count',
  'X-Search-Available',
];

/** Builds the whole HTTP application; every module is registered here, explicitly, in one place. */
export async function buildApp(config: Config, infra: Infra): Promise<App> {
  const headers = securityHeaders({ https: new URL(config.social.publicUrl).protocol === 'https:' });
  // JSON lines, or readable ones on a terminal (infra/log-format.ts); a test's stream as given.
  const logStream = infra.logStream ?? logDestination(config.logFormat);
  // A request is logged by its route and redacted query, never its URL or headers (request-log.ts).
  const log = privateLogger(config.logLevel, logStream);
  const clock = infra.clock ?? systemClock;
  const app = Fastify({
    // The logger is ours, not Fastify's: with a logger of its own Fastify listens for every
    // response's end (to write the request lines we replace with one of our own, onResponse
    // below), a closure and two listeners per request for nothing. Requests still get a child
    // with their id (lazy-logger.ts), and app.log is this logger (set below).
    logger: false,
    childLoggerFactory: lazyChildLoggerFactory(log),
    // One log line per request (request-log.ts) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: requestId,
    // Fastify gives a plugin 10 s to register, and the API's compile hundreds of schemas: on a busy
    // machine (a start beside a running service or a test run) that took longer and `serve` died with
    // "Plugin did not start in time". A minute still ends a start that hangs.
    pluginTimeout: 60_000,
    bodyLimit: BODY_LIMIT_BYTES,
    // Fastify's default (100) answers 414 to a signed download token with ids of a few digits;
    // every parameter's schema still sets its own maximum (a token's is 400).
    routerOptions: { maxParamLength: 400 },
    trustProxy: trustProxyOption(config.trustProxy),
    frameworkErrors: answerFrameworkError(
      answerStart({ defaultLanguage: config.defaultLanguage, fixedHeaders: headers }, clock),
      corsHeadersOf(config.corsOrigins),
    ),
    // What Node cannot parse as a request at all: the same shape and headers (error-handler.ts).
    clientErrorHandler: answerClientError(headers, config.defaultLanguage),
    // Requests start within a CPU budget per turn of the event loop, so new connections are let in under load.
    serverFactory: gatedServerFactory(config.httpTurnBudgetMs),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Fastify's own lines (listening, client errors) and every plugin's app.log: a plain property
  // that plugins registered below inherit.
  app.log = log;

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON only: a text/plain body on a JSON route is a 415, not a string handed to the schema.
  app.removeContentTypeParser('text/plain');
  // A JSON body must be UTF-8: one that is not is a 400, not text with U+FFFD in it (http/json-body.ts).
  registerUtf8JsonBodies(app);

  // Before anything listens: without the key that seals saved cards' tokens the process does not start.
  const cardTokens = cardTokensFor({ databaseUrl: config.databaseUrl, cardTokenKeys: config.subscriptions.cardTokenKeys }, log);
  // The process's one password hashing queue takes its size from these settings (infra/passwords.ts).
  setPasswordHashConcurrency(config.passwordHashConcurrency);
  const deps: SharedDeps = {
    ...infra,
    config,
    stores: createStoreCache(infra.database, config.storeCacheTtlMs),
    sessionActions: createSessionActionRecorder(infra.database, app.log, { limits: config.tracking }),
  };
  // Written before the database handle is closed by whoever owns it.
  app.addHook('onClose', async () => deps.sessionActions.flush());
  const bannerCtr = createCtrRecorder(infra.database, app.log, { limits: config.ctr, knownBanners: existingBanners(infra.database.db) });
  app.addHook('onClose', async () => bannerCtr.flush());
  registerErrorHandling(app);
  // Before any route: a GET that writes (config.getWrites) gets a HEAD that does not (http/head-requests.ts).
  registerHeadRequests(app);
  registerEmptyJsonBodyTolerance(app);
  const storeHook = registerRequestContext(app, { ...config, fixedHeaders: headers }, deps.stores, clock);
  if (['info', 'debug', 'trace'].includes(config.logLevel)) registerRequestLog(app);
  if (config.replica) registerReadYourWrites(app, { stickyMs: config.replica.stickyMs });
  // Requests are counted only where /metrics shows them; without it the hook is not there at all.
  const metricsAt = metricsPlacement(config.metrics);
  if (metricsAt !== 'off') registerRequestMetrics(app);
  await registerCors(app, config);
  closeKeptAliveConnectionsOnShutdown(app);
  if (infra.lifecycle && config.shutdownDrainMs > 0) closeConnectionsWhileDraining(app, infra.lifecycle);

  await registerApiDocs(app, {
    mode: config.apiDocs,
    basePath: config.basePath,
    authenticateOperator: (request) => authenticateOperator(infra.database.db, request),
    operatorPaths: ['/admin'],
  });

  await app.register(
    async (api) => {
      // Routes of the main API depend on the web store unless they say otherwise.
      api.addHook('onRoute', (route) => {
        if (route.config?.storeScoped !== undefined) return;
        route.config = { ...route.config, storeScoped: true };
        attachStoreHook(route, storeHook);
      });
      const { database } = infra;
      await api.register(siteRoutes, { database, lifecycle: infra.lifecycle });
      await api.register(appConfigRoutes);
      await api.register(countryRoutes, { database, config });
      // A reset or verification link used proves the mailbox: an address nobody had confirmed is
      // confirmed, and its owner takes the account over from whoever made it (modules/social).
      await api.register(accountsRoutes, { database, config, mailboxProven: takeOverProvenMailbox, companyOf: companyOfAccount });
      await api.register(newsletterRoutes, { database, config });
      await api.register(socialRoutes, { database, config, stores: deps.stores, clock });
      await api.register(companiesRoutes, { database, config });
      await api.register(profileRoutes, { database, config });
      await api.register(gdprRoutes, { database, config });
      // One catalogue (its caches of products, trees and names) for its own routes and for search's.
      // Catalogue, content, blog and export reads may go to a read replica (db/replica-routing.ts).
      const replicaReads = database.replicaReads;
      const catalogue = createCatalogue({ ...deps, database: replicaReads });
      await api.register(catalogueRoutes, { ...deps, database: replicaReads, callerDatabase: database, catalogue });
      await api.register(searchRoutes, { ...deps, catalogue });
      await api.register(trackingRoutes, { database, sessionActions: deps.sessionActions, productVisible: catalogue.seesProductCode });
      await api.register(basketRoutes, {
        database,
        sessionActions: deps.sessionActions,
        productTtlMs: config.catalogueCacheTtlMs,
        config,
      });
      await api.register(wishlistRoutes, { database, catalogue, sessionActions: deps.sessionActions });
      await api.register(contentRoutes, { database: replicaReads, catalogue, guestAnswerTtlMs: config.catalogueCacheTtlMs });
      await api.register(giftCardsRoutes, { database, confirmedEmailOf: confirmedLoginEmailOf, config });
      await api.register(backInStockRoutes, { database, confirmedEmailOf: confirmedLoginEmailOf, wantsBackInStockMails, config });
      await api.register(contactRoutes, { database, confirmedEmailOf: confirmedLoginEmailOf, config });
      await api.register(ctrRoutes, { database, recorder: bannerCtr });
      await api.register(blogRoutes, { database: replicaReads, config: config.blog });
      // A payment page that takes no money: only where TEST_GATEWAY (or the demo, see serve) turns it on.
      if (config.testGateway === 'on') await api.register(testGatewayRoutes, { database });
      const gateways = configuredGateways({
        database,
        clock,
        everypay: config.everypay,
        testGateway: config.testGateway === 'on',
        publicUrl: config.orders.publicUrl,
        basePath: config.basePath,
      });
      // Callbacks about a subscription's card or charge come to the same gateway callback URL.
      const otherPayments = subscriptionPayments(database.db, cardTokens);
      // One pause per gateway for the look-ups that callbacks and shoppers' returns (orders' and cards') make.
      const pauses = lookUpPauses(clock, config.orders.callbackGatewayPauseMs, app.log);
      await api.register(ordersRoutes, { database, config, stores: deps.stores, gateways, lookUpPauses: pauses, clock, otherPayments });
      const subscriptionUrls = {
        publicUrl: config.orders.publicUrl,
        basePath: config.basePath,
        returnRateLimit: config.orders.callbackRateLimit,
        cardChecks: config.subscriptions.cardChecks,
        subscribePerClient: config.subscriptions.subscribePerClient,
      };
      await api.register(subscriptionsRoutes, {
        database,
        gateways,
        lookUpPauses: pauses,
        cardTokens,
        stores: deps.stores,
        config: subscriptionUrls,
      });
      await api.register(adminRoutes, { database, importer: createImporter(importKinds, { db: database.db, clock, log: app.log }) });
      await api.register(adminOrdersRoutes, { database, gateways, clock, feedSettleMs: config.orders.feedSettleMs });
      await api.register(supplierRoutes, { database, clock, config: config.integrations });
      await api.register(eventFeedRoutes, { database });
      const fileStore = await createFileStore(config.fileStore);
      const downloadsConfig = {
        downloads: config.downloads,
        basePath: config.basePath,
        publicUrl: config.orders.publicUrl,
        linkGuessesPerIp: config.linkGuessesPerIp,
      };
      await api.register(downloadsRoutes, { database, fileStore, config: downloadsConfig });
      await api.register(productFilesRoutes, { database, fileStore });
      await api.register(sitemapRoutes, { fileStore, stores: deps.stores });
    },
    { prefix: config.basePath },
  );
  // The analytics partner's API: its own prefix, HTTP Basic, not store-scoped, its own API document.
  await app.register(dataExportRoutes, {
    database: infra.database.replicaReads,
    primary: infra.database,
    config,
    prefix: config.dataExportPath,
  });
  // Prometheus scrapes the root path; on the API only behind METRICS_TOKEN (else it is on its own listener, or off).
  if (metricsAt === 'api') await app.register(metricsRoutes, metricsDeps(config, infra));

  return app;
}

/**
 * The listener of METRICS_HOST:METRICS_PORT: GET /metrics and nothing else (404 in the error
 * shape), no request context, no docs; a METRICS_TOKEN, when also set, is required here too.
 */
export async function buildMetricsApp(config: Config, infra: Infra): Promise<App> {
  const logStream = infra.logStream ?? logDestination(config.logFormat);
  const app = Fastify({
    loggerInstance: privateLogger(config.logLevel, logStream) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(404, translate(config.defaultLanguage, 'error.notFound'))));
  await app.register(metricsRoutes, metricsDeps(config, infra));
  return app;
}

const metricsDeps = (config: Config, infra: Infra) => ({
  database: infra.database,
  ...(infra.clock ? { clock: infra.clock } : {}),
  token: config.metrics.token,
  authFailuresPerIp: config.metrics.authFailuresPerIp,
  defaultLanguage: config.defaultLanguage,
});

/**
 * While the process drains (after SIGTERM, SHUTDOWN_DRAIN_MS), every answer closes its connection,
 * so a client or proxy that keeps connections alive opens its next one to a process that stays.
 * Registered only with a drain: other processes pay nothing per request.
 */
function closeConnectionsWhileDraining(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.addHook('onRequest', (_request, reply, done) => {
    if (lifecycle.stopping) reply.header('Connection', 'close');
    done();
  });
}

/**
 * On close, Node closes the connections that are idle at that moment and waits for the rest. A
 * keep-alive connection whose request was still in flight stays open after its answer, so the
 * shutdown would wait for the client's keep-alive timeout. Until the server has closed, such
 * connections are closed as soon as they fall idle.
 */
function closeKeptAliveConnectionsOnShutdown(app: FastifyInstance): void {
  app.addHook('preClose', (done) => {
    const sweep = setInterval(() => app.server.closeIdleConnections(), 25);
    sweep.unref();
    app.server.once('close', () => clearInterval(sweep));
    done();
  });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * OPTIONS is answered on every route without authentication. With allowed origins that is the CORS
 * plugin's preflight; without any, no browser may call cross-origin, so the plugin (and the
 * headers it adds to every response) is left out and OPTIONS just lists the methods.
 */
async function registerCors(app: FastifyInstance, config: Config): Promise<void> {
  if (config.corsOrigins.length === 0) {
    app.options('*', { schema: { hide: true } }, async (_request, reply) => reply.code(204).header('Allow', METHODS.join(', ')).send());
    return;
  }
  await app.register(cors, {
    origin: config.corsOrigins,
    methods: METHODS,
    exposedHeaders: EXPOSED_HEADERS,
    // Answer every OPTIONS, also one without Origin: the spec handles OPTIONS for every action.
    strictPreflight: false,
    maxAge: 600,
  });
}

/**
 * The CORS headers the plugin (registerCors) gives a simple request's answer, for an answer given
 * before its hook runs (answerFrameworkError): the origin when it is allowed, and what it exposes.
 */
function corsHeadersOf(origins: readonly string[]): (request: FastifyRequest) => Record<string, string> {
  if (origins.length === 0) return () => ({});
  const exposed = EXPOSED_HEADERS.join(', ');
  return (request) => {
    const origin = request.headers.origin;
    const allowed = typeof origin === 'string' && origins.includes(origin);
    return { Vary: 'Origin', 'Access-Control-Expose-Headers': exposed, ...(allowed && { 'Access-Control-Allow-Origin': origin }) };
  };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
// Unique across processes by the random prefix, within one by the counter; cheaper than a UUID.
const REQUEST_ID_PREFIX = randomBytes(4).toString('hex');
let requestCounter = 0;

/** Keeps a caller's x-request-id when it is a sane token, so logs line up across services. */
function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
  requestCounter += 1;
  return `${REQUEST_ID_PREFIX}-${requestCounter.toString(36)}`;
}
