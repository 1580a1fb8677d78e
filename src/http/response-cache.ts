import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { boundedCache } from '../infra/bounded-cache.js';
import { setLinkHeader } from './paging.js';

/**
 * A guest's catalogue answer is the same for every guest of a store and language until the data
 * changes, and most traffic is guests reading the same popular pages. In the plugin it is
 * registered in, a guest's public 200 answer to GET is kept with the headers that belong to it, and
 * the next identical request gets it without running the handler again. It is kept for `ttlMs`, or
 * less when its own max-age is shorter (content's ends when something it shows starts or ends), and
 * replayed with an `Age` header (RFC 9111 4.2.3) so that a browser or CDN counts the time it was kept.
 *
 * It serves from `preHandler`, so the store hook (unknown store 400, locked store 423) and the
 * validation of the request have run first, and the request-context headers (action-time,
 * request id, store state) are fresh. Answers to logged-in callers are never kept.
 * A route may attach `reply.replayTag`: it is stored with the answer and handed to `onReplay`
 * when a request is answered from the cache (a product page records its view that way).
 */
export interface ResponseCacheOptions {
  ttlMs: number;
  maxEntries: number;
  onReplay?: (request: FastifyRequest, tag: ReplayTag) => void;
}

export type ReplayTag = Record<string, string>;

declare module 'fastify' {
  interface FastifyReply {
    replayTag: ReplayTag | null;
  }
}

interface CachedAnswer {
  /** The body as sent: text, or bytes (kept card texts: http/serialization.ts). */
  payload: string | Buffer;
  headers: Record<string, string>;
  tag: ReplayTag | null;
  /** The path and other parameters the answer's Link header was built from (linkBase). */
  linkBase: string;
  /** When it was made (Unix ms): its Age. It is kept for its max-age or the cache's TTL, the shorter. */
  madeAt: number;
}

// The headers an answer carries that its handler (not the request context) set.
const KEPT_HEADERS = [
  'content-type',
  'cache-control',
  'vary',
  'etag',
  'link',
  'x-pagination-current-page',
  'x-pagination-page-count',
  'x-pagination-per-page',
  'x-pagination-total-count',
  'x-search-available',
];

const FROM_CACHE = Symbol('fromResponseCache');

export function registerGuestResponseCache(app: FastifyInstance, options: ResponseCacheOptions): void {
  if (options.ttlMs <= 0) return;
  const answers = boundedCache<string, CachedAnswer>(options.ttlMs, options.maxEntries, 'guest-answers');
  const cacheable = (request: FastifyRequest) => request.method === 'GET' && request.headers.authorization === undefined;

  app.decorateReply('replayTag', null);

  app.addHook('preHandler', async (request, reply) => {
    if (!cacheable(request)) return;
    // Kept no longer than its own max-age: past it, a miss, made again, and the new answer replaces it.
    const hit = answers.peek(keyOf(request));
    if (!hit) return;
    const now = Date.now();
    if (hit.tag && options.onReplay) options.onReplay(request, hit.tag);
    (reply as unknown as Record<symbol, boolean>)[FROM_CACHE] = true;
    reply.headers(hit.headers);
    reply.header('age', String(Math.floor((now - hit.madeAt) / 1000)));
    // The Link header names the URL it was made for: the same parameters, maybe other unknown ones.
    const base = linkBase(request.url);
    if (hit.headers.link !== undefined && base !== hit.linkBase)
      setLinkHeader(reply, hit.headers.link.split(`<${hit.linkBase}`).join(`<${base}`));
    return reply.send(hit.payload);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!cacheable(request) || reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) return payload;
    if ((reply as unknown as Record<symbol, boolean>)[FROM_CACHE]) return payload;
    const cacheControl = reply.getHeader('cache-control');
    if (typeof cacheControl !== 'string' || !cacheControl.startsWith('public')) return payload;
    // A list whose Link was left out for its length would replay without one to shorter URLs of the same key.
    if (reply.hasHeader('x-pagination-current-page') && !reply.hasHeader('link')) return payload;
    const lifetimeMs = Math.min(options.ttlMs, maxAgeMs(cacheControl) ?? options.ttlMs);
    if (lifetimeMs <= 0) return payload;
    answers.set(
      keyOf(request),
      { payload, headers: keptHeaders(reply), tag: reply.replayTag, linkBase: linkBase(request.url), madeAt: Date.now() },
      lifetimeMs,
    );
    return payload;
  });
}

const MAX_AGE = /(?:^|[\s,])max-age=(\d+)/;

/** The `max-age` of a Cache-Control value in ms, or undefined when it has none. */
function maxAgeMs(cacheControl: string): number | undefined {
  const match = MAX_AGE.exec(cacheControl);
  return match ? Number(match[1]) * 1000 : undefined;
}

/**
 * What a guest's answer depends on: the store and language the request context resolved (not the
 * raw headers: `x-app-language: <anything>` is the store's default language), the route, and its
 * path and query parameters as validation coerced them, the query restricted to the parameters the
 * route's schema declares, in the schema's order. Unknown parameters (a client's cache buster,
 * `?colour=red`) are accepted and ignored, so they must not make another entry either: otherwise
 * every varied parameter is a miss that runs the handler, which is how a cheap request defeated
 * the cache. `?page=01` and `?page=1`, `/product/007` and `/product/7` are one answer too.
 */
function keyOf(request: FastifyRequest): string {
  const names = queryNamesOf(request);
  const query = (request.query ?? {}) as Record<string, unknown>;
  const known: unknown[] = [];
  for (const name of names) if (query[name] !== undefined) known.push(name, query[name]);
  return JSON.stringify([request.store?.code ?? '', request.language, request.routeOptions.url, request.params ?? {}, known]);
}

const NO_NAMES: readonly string[] = [];
const queryNames = new WeakMap<object, readonly string[]>();

/** The query parameters the route's schema declares, in its order (read once per route). */
function queryNamesOf(request: FastifyRequest): readonly string[] {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  if (!schema) return NO_NAMES;
  let names = queryNames.get(schema);
  if (names === undefined) {
    names = Object.keys(schema.properties ?? {});
    queryNames.set(schema, names);
  }
  return names;
}

/** The path and the parameters other than page and per-page, as setPaginationHeaders (http/paging.ts) puts them in each link. */
function linkBase(url: string): string {
  const [path = '/', search = ''] = url.split('?', 2);
  const params = new URLSearchParams(search);
  params.delete('page');
  params.delete('per-page');
  const kept = params.toString();
  return `${path}?${kept === '' ? '' : `${kept}&`}`;
}

function keptHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}
