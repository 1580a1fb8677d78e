import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { PUBLIC_MAX_AGE_SECONDS, setCacheHeaders, type CacheAudience } from '../../http/http-cache.js';
import { authenticator } from '../../http/auth.js';
import { requestStore } from '../../http/request-context.js';
import { callerDiscountsReader } from './caller.repository.js';
import { clientCaller, GUEST, type Caller } from './caller.js';
import type { CatalogueContext } from './catalogue.service.js';

// The HTTP side of a catalogue read, shared by the catalogue's routes and search's: who the caller
// is, the request's store, language and time as a plain context for the services, and the cache
// headers of the answer.

export type CallerResolver = (request: FastifyRequest) => Promise<Caller>;

/**
 * The caller of a catalogue request: a guest without `Authorization`, else the token's client
 * account (a bad, expired or other-store token is a 401, as on every authenticated route: a client
 * that sends a token expects its own prices, and silently showing guest prices would mislead).
 */
export function callerResolver(database: DatabaseHandle): CallerResolver {
  const discounts = callerDiscountsReader(database);
  const authenticate = authenticator(database);
  return async (request) => {
    if (request.headers.authorization === undefined) return GUEST;
    const principal = await authenticate(request);
    return clientCaller(principal, await discounts(principal.clientAccountId));
  };
}

/** The request's caller, store, language and action time, for the catalogue's services. */
export function catalogueContext(request: FastifyRequest, caller: Caller): CatalogueContext {
  return { caller, store: requestStore(request), language: request.language, now: request.actionTime };
}

/** Cache-Control (and so ETag and 304) for an answer to this caller. */
export function cacheFor(reply: FastifyReply, caller: Caller): void {
  setCacheHeaders(reply, cacheAudienceOf(caller.kind));
}

/**
 * cacheFor an answer showing prices, kept no longer than until `changesAt`, the first instant a
 * price it shows may change (Catalogue.pricesChangeAt): a campaign price must not be shown after its
 * campaign ends (or the regular price after one starts) by this process's guest cache, a CDN or a
 * browser, while the basket charges the other price.
 */
export function cacheUntil(reply: FastifyReply, context: CatalogueContext, changesAt: number): void {
  const seconds = Math.min(PUBLIC_MAX_AGE_SECONDS, Math.max(0, Math.floor((changesAt - context.now) / 1000)));
  setCacheHeaders(reply, cacheAudienceOf(context.caller.kind), seconds);
}

/**
 * Who may keep an answer to this kind of caller: a guest's is the same for every guest (public); a
 * retail customer's carries their own discount, so only their browser may keep it (a shared cache
 * may store a `public` answer to a request with Authorization, and one that ignores Vary would hand
 * it to everybody); business and wholesale answers carry company prices and are kept nowhere.
 */
export function cacheAudienceOf(kind: Caller['kind']): CacheAudience {
  if (kind === 'GUEST') return 'public';
  return kind === 'SIMPLE' ? 'private' : 'none';
}
