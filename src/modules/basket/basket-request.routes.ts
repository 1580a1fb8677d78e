import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { addressKey } from '../../infra/address-key.js';
import { rateLimited } from '../../infra/rate-limit.js';
import { tokenBuckets, type TokenBuckets } from '../../infra/token-bucket.js';
import { isTokenShaped } from '../../infra/tokens.js';
import { callerResolver, type Caller } from '../catalogue/index.js';
import type { BasketSection } from './basket.config.js';
import type { BasketLine } from './basket-lines.repository.js';
import type { BasketProductCache } from './basket-product-cache.js';
import { priceBasket, priceRead, type BasketContext, type PricedBasket } from './basket-pricing.js';
import type { BasketRow } from './basket.repository.js';
import type { BasketWire } from './basket.schemas.js';
import { basketWriteQueries, openBasket, openBasketForWrite, type BasketOwner, type BasketWriteQueries } from './basket.service.js';
import { basketVersion, toBasketWire } from './basket.wire.js';

/** The HTTP side shared by the basket's routes (and the merge route). */
export interface BasketHttp {
  /** The caller, store, language and time, and whose basket the request is about. */
  contextOf(request: FastifyRequest): Promise<{ context: BasketContext; owner: BasketOwner }>;
  /**
   * Runs a write in one transaction on the locked basket (If-Match checked first) and answers with
   * the basket; `resolved` is contextOf's answer when the route already asked for it.
   */
  write(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (trx: Db, context: BasketContext, basket: BasketRow, queries: BasketWriteQueries) => Promise<BasketRow>,
    resolved?: { context: BasketContext; owner: BasketOwner },
  ): Promise<BasketWire>;
  /**
   * The same for a write that always changes the basket: the basket comes opened with its version
   * already moved on (openBasketForWrite), and the work returns the lines as they are after it,
   * which the answer is priced from. `queries` are the write path's compiled statements.
   */
  writeLines(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (trx: Db, context: BasketContext, basket: BasketRow, queries: BasketWriteQueries) => Promise<BasketLine[]>,
  ): Promise<BasketWire>;
  answer(reply: FastifyReply, request: FastifyRequest, priced: PricedBasket, token: string | null): BasketWire;
}

/**
 * The buckets of guest writes per client address (BASKET_WRITE_RATE_LIMIT_PER_IP), one set per
 * configuration: the basket routes, the order repeat and checkout each make a BasketHttp, and an
 * address's writes through any of them count together.
 */
const guestWriteBuckets = new WeakMap<BasketSection, TokenBuckets>();

/**
 * `limits`: how many new guest baskets one client address may make (BASKET_RATE_LIMIT_PER_IP, in
 * the database) and how many guest writes it may send (BASKET_WRITE_RATE_LIMIT_PER_IP, in memory).
 * `products`: the basket group's kept products (basket-product-cache.ts); without them every read joins the products.
 */
export function basketHttp(database: DatabaseHandle, limits: BasketSection, products?: BasketProductCache): BasketHttp {
  const db = database.db;
  const newGuestBaskets = limits.newGuestBasketsPerIp;
  let guestWrites = guestWriteBuckets.get(limits);
  if (guestWrites === undefined) {
    guestWrites = tokenBuckets(limits.guestWritesPerIp);
    guestWriteBuckets.set(limits, guestWrites);
  }
  const writesOf = guestWrites;
  /**
   * A guest's write is counted per address before its transaction (a 429 with Retry-After past the
   * limit): anyone can repeat one, each costs a transaction, and a guest's writes to a basket it
   * has are not counted anywhere else. A client's writes are not counted here.
   */
  const admitWrite = (owner: BasketOwner, now: number) => {
    if (owner.kind !== 'guest') return;
    const wait = writesOf.take(owner.address, 1, now);
    if (wait > 0) throw rateLimited(wait);
  };
  const callerOf = callerResolver(database);
  const written = basketWriteQueries(database);
  const queries: BasketWriteQueries = products ? { ...written, ...products.forWrites(written), refresh: products.refresh } : written;
  const http: BasketHttp = {
    async contextOf(request) {
      const caller = await callerOf(request);
      const store = requestStore(request);
      const context: BasketContext = { caller, store, language: request.language, now: request.actionTime };
      return { context, owner: ownerOf(request, caller) };
    },
    async write(request, reply, work, resolved) {
      const { context, owner } = resolved ?? (await http.contextOf(request));
      admitWrite(owner, context.now);
      const { priced, token } = await db.transaction().execute(async (trx) => {
        const opened = await openBasket(trx, owner, context.store.code, context.now, newGuestBaskets);
        checkIfMatch(request, opened.basket);
        const basket = await work(trx, context, opened.basket, queries);
        return { priced: await priceBasket(trx, context, basket, queries), token: opened.token };
      });
      return http.answer(reply, request, priced, token);
    },
    async writeLines(request, reply, work) {
      const { context, owner } = await http.contextOf(request);
      admitWrite(owner, context.now);
      const { priced, token } = await db.transaction().execute(async (trx) => {
        const opened = await openBasketForWrite(trx, queries.writes, owner, context.store.code, context.now, newGuestBaskets);
        // If-Match names the version the write is based on: the one before this write's.
        checkIfMatch(request, { ...opened.basket, version: opened.basket.version - 1 });
        const lines = await work(trx, context, opened.basket, queries);
        return { priced: await priceRead(trx, context, opened.basket, lines, queries), token: opened.token };
      });
      return http.answer(reply, request, priced, token);
    },
    answer(reply, request, priced, token) {
      if (priced.basket) reply.header('ETag', `"${basketVersion(priced.basket)}"`);
      if (token !== null) reply.header('basket-token', token);
      return toBasketWire(priced, token, request.language);
    },
  };
  return http;
}

/** Whose basket: the bearer token's client (any basket-token is ignored), else the guest's token. */
function ownerOf(request: FastifyRequest, caller: Caller): BasketOwner {
  if (caller.clientAccountId !== null) return { kind: 'client', clientAccountId: caller.clientAccountId };
  return { kind: 'guest', token: guestToken(request), address: addressKey(request.ip) };
}

/** The request's guest token; a header that is not token-shaped is a 400. */
export function guestToken(request: FastifyRequest): string | undefined {
  const header = request.headers['basket-token'];
  if (header === undefined || header === '') return undefined;
  if (!isTokenShaped(header)) throw new HttpError(400, 'basket.badToken');
  return header;
}

/** A write based on a stale version (If-Match, as sent in the ETag or the body's version) is a 412. */
function checkIfMatch(request: FastifyRequest, basket: { id: number; version: number }): void {
  const header = request.headers['if-match'];
  if (header === undefined) return;
  const current = basketVersion(basket);
  const sent = header.split(',').map((part) =>
    part
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1'),
  );
  if (sent.includes('*') || sent.includes(current)) return;
  throw new HttpError(412, 'basket.versionMismatch', { version: (sent[0] ?? '').slice(0, 40) });
}
