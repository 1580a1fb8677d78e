import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { digest } from '../infra/digest.js';

/**
 * Caching of catalogue answers by shared caches (a CDN) and browsers. What a guest sees is the same
 * for every guest of a store and language: public. A retail customer's prices may carry their own
 * discount: private to that browser. Business and wholesale answers carry company prices and are
 * never stored anywhere (the `no-store` the request context sets for any Authorization stays).
 */
export type CacheAudience = 'public' | 'private' | 'none';

export const PUBLIC_MAX_AGE_SECONDS = 60;

export function setCacheHeaders(reply: FastifyReply, audience: CacheAudience, maxAgeSeconds = PUBLIC_MAX_AGE_SECONDS): void {
  if (audience === 'none') {
    reply.header('Cache-Control', 'no-store');
    return;
  }
  reply.header('Cache-Control', `${audience}, max-age=${maxAgeSeconds}`);
  // The answer depends on these request headers; a shared cache must key on them. Added to what is
  // there already: with several allowed origins the CORS plugin has set `Vary: Origin`.
  addVary(reply, ['store', 'x-app-language', 'Authorization', 'Accept-Encoding']);
}

function addVary(reply: FastifyReply, names: string[]): void {
  const current = reply.getHeader('vary');
  // Nearly always nothing is there yet (one allowed origin): no parsing, no merging.
  if (current === undefined) {
    reply.header('Vary', names.join(', '));
    return;
  }
  const present = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const known = new Set(present.map((name) => name.toLowerCase()));
  reply.header('Vary', [...present, ...names.filter((name) => !known.has(name.toLowerCase()))].join(', '));
}

/**
 * Every answer of the plugin it is registered in is `no-store` (account data, baskets, orders,
 * payments), errors included. A synchronous hook: an async one costs a promise and a microtask
 * turn on every request.
 */
export function registerNoStore(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Cache-Control', 'no-store');
    done();
  });
}

/**
 * In the plugin it is registered in: a cacheable 200 answer to GET gets a strong ETag from its
 * body, and a conditional GET whose If-None-Match holds it gets a 304 without the body. A HEAD is
 * the GET without the body, its conditionals included (RFC 9110 9.3.2): the same ETag and 304.
 */
export function registerConditionalGet(app: FastifyInstance): void {
  // A callback hook: an async one costs every answer of the catalogue a promise and a microtask turn.
  app.addHook('onSend', (request, reply, payload, done) => done(null, conditionalAnswer(request, reply, payload)));
}

/** The payload to send: the same with an ETag added where the answer may be kept, or none for a 304. */
function conditionalAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  // A body written as text or as bytes (kept card texts: http/serialization.ts), not a stream.
  const head = request.method === 'HEAD';
  if ((request.method !== 'GET' && !head) || reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload)))
    return payload;
  const cacheControl = reply.getHeader('cache-control');
  if (typeof cacheControl !== 'string' || !(cacheControl.startsWith('public') || cacheControl.startsWith('private'))) return payload;
  // An answer replayed from the response cache brings its ETag along.
  const known = reply.getHeader('etag');
  const etag = typeof known === 'string' ? known : `"${digest('sha1', payload, 'base64url')}"`;
  reply.header('ETag', etag);
  if (ifNoneMatchHolds(request.headers['if-none-match'], etag)) {
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    // A HEAD's body goes to Fastify's HEAD hook, which drops it and sets its length; the 304 has that
    // length taken off again after it (http/head-requests.ts), as a GET's 304 has none.
    if (head) return payload;
    // No body at all (null, not ''): Fastify then sends no Content-Length, which on a 304 must
    // be the 200's length or absent (RFC 9110 8.6); '' made it 0.
    return null;
  }
  return payload;
}

/** Whether an If-None-Match holds the current `etag` (or is `*`): a GET or HEAD of it is a 304 (RFC 9110 13.1.2). */
export function ifNoneMatchHolds(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  // Weak comparison, as RFC 9110 asks for If-None-Match: W/"x" matches "x".
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
