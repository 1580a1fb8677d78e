import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { isLanguage, type Language } from '../i18n/index.js';
import { systemClock, type Clock } from '../infra/clock.js';
import { HttpError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Unix ms when the action started; sent as `action-time` (seconds). */
    actionTime: number;
    /** The web store the request is scoped to; null on routes that are not store-scoped. */
    store: RequestStore | null;
    language: Language;
  }
  interface FastifyContextConfig {
    /** Whether the route depends on a web store; main-API routes default to true (see app.ts), others to false. */
    storeScoped?: boolean;
  }
}

/**
 * The web store of a request, as far as the wire conventions need it (code, lock, languages). The
 * store module, which owns web stores, adds the rest of its settings to this interface (declaration
 * merging), so routes read them from `request.store` without this layer knowing the module.
 */
export interface RequestStore {
  code: string;
  isActive: boolean;
  isLocked: boolean;
  /** Unix ms when the lock should end, when known. */
  lockedUntil: number | null;
  availableLanguages: Language[];
  defaultLanguage: Language;
}

/** Where the stores come from: app.ts passes the store module's settings cache. */
export interface StoreReader {
  /** The codes a client may send, for the message about an unknown one. */
  readonly codes: readonly string[];
  /** The store with that code; undefined when there is none. */
  get(code: string): Promise<RequestStore | undefined>;
  /** What get() would answer at once from a cache, if it can; undefined when it would have to read. */
  peek?(code: string): { value: RequestStore | undefined } | undefined;
}

/** The configuration the request context reads. */
export interface RequestContextConfig {
  defaultLanguage: Language;
  /** The store of a request without a `store` header. */
  defaultStore: string;
  /**
   * Headers every answer carries (security-headers.ts), set first so that an error thrown by any
   * later hook or handler keeps them. Here rather than in a hook of their own: every hook is a
   * step of Fastify's hook runner on every request.
   */
  fixedHeaders?: Record<string, string>;
}

/** The store of a store-scoped route; the hook guarantees it is there. */
export function requestStore(request: FastifyRequest): RequestStore {
  if (!request.store) throw new Error(`Route ${request.routeOptions.url} is not store-scoped`);
  return request.store;
}

/** Query parameters that carry a credential (the spec's links and the social flows). */
const CREDENTIAL_IN_QUERY = /[?&](verificationToken|passwordResetToken|token|code|state|authId)=/;

/**
 * The spec's common conventions as shared hooks, so no route has to remember them: on every
 * request action-time, request id and language; on store-scoped routes also the `store` header
 * (unknown code -> 400, locked store -> 423 before any processing) and the store-state headers.
 * OPTIONS (CORS preflight) needs no store and no authentication and works on a locked store.
 * Returns the store hook, for the main API to attach to its routes by default.
 */
export function registerRequestContext(
  app: FastifyInstance,
  config: RequestContextConfig,
  stores: StoreReader,
  clock: Clock = systemClock,
): RequestHook {
  app.decorateRequest('actionTime', 0);
  app.decorateRequest('store', null);
  app.decorateRequest('language', config.defaultLanguage);

  // Runs on every request, so it stays synchronous and reads no route options (Fastify builds
  // that object anew on each access); the store part is a hook of the store-scoped routes alone.
  const start = answerStart(config, clock);
  app.addHook('onRequest', (request, reply, done) => {
    start(request, reply);
    if (request.headers['content-encoding'] !== undefined) {
      const refused = unsupportedBodyEncoding(request);
      if (refused) return done(refused);
    }
    // Anything that depends on who is calling must not be kept by a shared cache: a caller shows
    // who it is by its Authorization, or by a single-use token in the URL (a verification or reset
    // link, a social sign-in), whose answer names the user.
    if (request.headers.authorization !== undefined || (request.url.includes('?') && CREDENTIAL_IN_QUERY.test(request.url)))
      reply.header('Cache-Control', 'no-store');
    done();
  });

  const storeHook = storeScopedHook(config, stores);
  // Routes anywhere that say `config: { storeScoped: true }`; the main API sets it by default.
  app.addHook('onRoute', (route) => {
    if (route.config?.storeScoped === true) attachStoreHook(route, storeHook);
  });
  return storeHook;
}

type RequestHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/**
 * A body sent compressed (`Content-Encoding: gzip`) is a 415 naming the encoding, with `Accept-Encoding: identity`
 * (RFC 9110 §15.5.16): no parser here decompresses, so it was read as bytes and refused as "not UTF-8" or
 * "invalid JSON", which sent the client's developer looking for a fault in the JSON rather than in the encoding.
 */
function unsupportedBodyEncoding(request: FastifyRequest): HttpError | undefined {
  const encoding = String(request.headers['content-encoding']).trim().toLowerCase();
  const length = request.headers['content-length'];
  const hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (encoding === '' || encoding === 'identity' || !hasBody) return undefined;
  return new HttpError(415, 'error.unsupportedContentEncoding', { encoding: encoding.slice(0, 100) }, { 'Accept-Encoding': 'identity' });
}

/**
 * The `store` header: unknown code 400, locked store 423 before any processing; OPTIONS passes.
 * A callback hook that finishes at once when the store's settings are cached (nearly always): an
 * async hook costs every store-scoped request a promise and a turn of the microtask queue.
 */
function storeScopedHook(config: RequestContextConfig, stores: StoreReader): RequestHook {
  return (request, reply, done) => {
    if (request.method === 'OPTIONS') return done();
    const code = request.headers.store ?? config.defaultStore;
    const cached = typeof code === 'string' ? stores.peek?.(code) : undefined;
    if (cached === undefined) {
      stores.get(typeof code === 'string' ? code : '').then(
        (store) => enter(request, reply, stores, code, store, done),
        (error: Error) => done(error),
      );
      return;
    }
    enter(request, reply, stores, code, cached.value, done);
  };
}

function enter(
  request: FastifyRequest,
  reply: FastifyReply,
  stores: StoreReader,
  code: string | string[],
  store: RequestStore | undefined,
  done: (error?: Error) => void,
): void {
  try {
    enterStore(request, reply, stores, code, typeof code === 'string' ? store : undefined, request.headers['x-app-language']);
  } catch (error) {
    return done(error as Error);
  }
  done();
}

export function attachStoreHook(route: RouteOptions, hook: RequestHook): void {
  const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  if (!existing.includes(hook as never)) route.onRequest = [...existing, hook] as RouteOptions['onRequest'];
}

/**
 * What every answer carries from its request's start: the fixed headers, the action time, the request
 * id and the language x-app-language asks for, each also set on the request. The onRequest hook's
 * first step, and the whole of it for a URL Fastify cannot route, which no hook sees
 * (error-handler.ts answerFrameworkError).
 */
export function answerStart(
  config: Pick<RequestContextConfig, 'defaultLanguage' | 'fixedHeaders'>,
  clock: Clock,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const fixedHeaders = Object.entries(config.fixedHeaders ?? {});
  return (request, reply) => {
    for (const [name, value] of fixedHeaders) reply.header(name, value);
    request.actionTime = clock.now();
    reply.header('action-time', Math.floor(request.actionTime / 1000));
    reply.header('x-request-id', request.id);
    request.language = askedLanguage(request.headers['x-app-language']) ?? config.defaultLanguage;
    reply.header('Content-Language', request.language);
  };
}

/**
 * The language an `x-app-language` value names: `en` as sent by our apps, and also `EN`, `en-US` or
 * `en_GB`, as a platform's locale API gives it (those got the default language, so a phone set to
 * English read Estonian), when it is one of ours. The exact value is the fast path of every request.
 */
function askedLanguage(asked: string | string[] | undefined): Language | undefined {
  if (isLanguage(asked)) return asked;
  if (typeof asked !== 'string') return undefined;
  const primary = /^\s*([A-Za-z]{2})(?:[-_][A-Za-z0-9-_]*)?\s*$/.exec(asked)?.[1]?.toLowerCase();
  return isLanguage(primary) ? primary : undefined;
}

function enterStore(
  request: FastifyRequest,
  reply: FastifyReply,
  stores: StoreReader,
  code: string | string[],
  store: RequestStore | undefined,
  asked: string | string[] | undefined,
): void {
  if (!store) {
    throw new HttpError(400, 'error.unknownStore', { store: String(code).slice(0, 32), stores: stores.codes.join(', ') });
  }
  request.store = store;
  const language = askedLanguage(asked);
  request.language = language !== undefined && store.availableLanguages.includes(language) ? language : store.defaultLanguage;
  reply.header('Content-Language', request.language);
  reply.header('is_active', store.isActive ? '1' : '0');
  reply.header('available_languages', store.availableLanguages.join(','));
  refuseLockedStore(store, request.actionTime);
}

/**
 * The spec's 423 while the store is locked for maintenance, with the lock's end as Retry-After when
 * it is known. The store hook's check, and that of the routes that name their store otherwise (the
 * payment start of an order of the store).
 */
export function refuseLockedStore(store: Pick<RequestStore, 'isLocked' | 'lockedUntil'> | undefined, now: number): void {
  if (!store?.isLocked) return;
  const retryAfter = store.lockedUntil === null ? undefined : Math.ceil((store.lockedUntil - now) / 1000);
  const headers: Record<string, string> = retryAfter && retryAfter > 0 ? { 'Retry-After': String(retryAfter) } : {};
  throw new HttpError(423, 'error.storeLocked', {}, headers);
}
