import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { boundedCache } from '../infra/bounded-cache.js';

/**
 * A guest's catalogue answer is the same for every guest of a store and language until the data
 * changes, and most traffic is guests reading the same popular pages. In the plugin it is
 * registered in, a guest's public 200 answer to GET is kept for `ttlMs` with the headers that
 * belong to it, and the next identical request gets it without running the handler again.
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
  payload: string;
  headers: Record<string, string>;
  tag: ReplayTag | null;
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
  const answers = boundedCache<string, CachedAnswer>(options.ttlMs, options.maxEntries);
  const keyOf = (request: FastifyRequest) =>
    `${String(request.headers.store ?? '')}|${String(request.headers['x-app-language'] ?? '')}|${request.url}`;
  const cacheable = (request: FastifyRequest) => request.method === 'GET' && request.headers.authorization === undefined;

  app.decorateReply('replayTag', null);

  app.addHook('preHandler', async (request, reply) => {
    if (!cacheable(request)) return;
    const hit = answers.peek(keyOf(request));
    if (!hit) return;
    if (hit.tag && options.onReplay) options.onReplay(request, hit.tag);
    (reply as unknown as Record<symbol, boolean>)[FROM_CACHE] = true;
    reply.headers(hit.headers);
    return reply.send(hit.payload);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!cacheable(request) || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if ((reply as unknown as Record<symbol, boolean>)[FROM_CACHE]) return payload;
    const cacheControl = reply.getHeader('cache-control');
    if (typeof cacheControl !== 'string' || !cacheControl.startsWith('public')) return payload;
    answers.set(keyOf(request), { payload, headers: keptHeaders(reply), tag: reply.replayTag });
    return payload;
  });
}

function keptHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}
