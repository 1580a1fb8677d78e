import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonBytes, sendJsonText } from './serialization.js';

/** `page` (1-based) and `per-page` query parameters; a malformed value is a 400 from validation. */
export const PagingQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'Page number, 1-based' })),
  'per-page': Type.Optional(Type.Integer({ minimum: 1, description: 'Items per page (default 20, at most 100)' })),
});
export type PagingQuery = Static<typeof PagingQuery>;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

export interface PagingLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

export const MAIN_API_PAGING: PagingLimits = { defaultPerPage: 20, maxPerPage: 100 };

/** The page asked for; a `per-page` above the maximum is capped, not refused. */
export function pageRequest(query: PagingQuery, limits: PagingLimits = MAIN_API_PAGING): PageRequest {
  const page = query.page ?? 1;
  const perPage = Math.min(query['per-page'] ?? limits.defaultPerPage, limits.maxPerPage);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * The longest Link header sent. Each link repeats the request's other parameters, so a long query
 * (a cache buster, a pasted text) made a header of five times its size: Node's own HTTP client
 * refuses answers whose headers pass 16 KB, and a proxy such as nginx answers 502 when they pass its
 * buffer (4-8 KB by default). Past this the answer has no Link; the X-Pagination-* headers still
 * give the page, its size and the page count.
 */
const LINK_HEADER_MAX_LENGTH = 2048;

/**
 * Sets the X-Pagination-* headers and a Link header with self, first, prev, next and last (setLinkHeader: left out past
 * LINK_HEADER_MAX_LENGTH). `served` is how many of the `total` a client can page to where a list serves only its first
 * results (search's window): the page count, `next` and `last` stop there, the total stays the true count.
 */
export function setPaginationHeaders(request: FastifyRequest, reply: FastifyReply, page: PageRequest, total: number, served = total): void {
  const pageCount = Math.ceil(Math.min(total, served) / page.perPage);
  reply.header('X-Pagination-Current-Page', page.page);
  reply.header('X-Pagination-Page-Count', pageCount);
  reply.header('X-Pagination-Per-Page', page.perPage);
  reply.header('X-Pagination-Total-Count', total);

  // The other parameters are serialised once; each link only adds its page.
  const [path = '/', search = ''] = request.url.split('?', 2);
  const kept = otherParameters(search);
  const prefix = `<${path}?${kept === '' ? '' : `${kept}&`}page=`;
  const suffix = `&per-page=${page.perPage}>; rel="`;
  const link = (target: number, rel: string) => `${prefix}${target}${suffix}${rel}"`;
  const last = Math.max(pageCount, 1);
  const links = [link(page.page, 'self'), link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, last), 'prev'));
  if (page.page < pageCount) links.push(link(page.page + 1, 'next'));
  links.push(link(last, 'last'));
  setLinkHeader(reply, links.join(', '));
}

/** Sets the Link header, or leaves it out when it is longer than LINK_HEADER_MAX_LENGTH. */
export function setLinkHeader(reply: FastifyReply, header: string): void {
  if (header.length <= LINK_HEADER_MAX_LENGTH) reply.header('Link', header);
  else reply.removeHeader('Link');
}

const PAGING_ONLY = /^(?:(?:page|per-page)=[^&]*(?:&|$))*$/;

/** The query without `page` and `per-page`, as URLSearchParams writes it; most list requests have nothing else, which needs no parsing. */
function otherParameters(search: string): string {
  if (PAGING_ONLY.test(search)) return '';
  const params = new URLSearchParams(search);
  params.delete('page');
  params.delete('per-page');
  return params.toString();
}

/** One page of a list already in memory (reference data, a short bounded list), with its headers. */
export function pageOfList<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  query: PagingQuery,
  all: readonly T[],
  limits: PagingLimits = MAIN_API_PAGING,
): T[] {
  const page = pageRequest(query, limits);
  setPaginationHeaders(request, reply, page, all.length);
  return all.slice(page.offset, page.offset + page.perPage);
}

/** A page of a kept list: its bytes, and its paging headers as the last URL that asked for it got them. */
interface KeptPage {
  url: string;
  body: Buffer;
  headers: Array<[string, string]>;
}

const PAGING_HEADERS = [
  'x-pagination-current-page',
  'x-pagination-page-count',
  'x-pagination-per-page',
  'x-pagination-total-count',
  'link',
];

/** The pages of each kept list, by offset and page size; they go with their list. */
const keptPages = new WeakMap<readonly unknown[], Map<number, KeptPage>>();
/** Enough for every page size a client uses of a list of tens; past it a page is serialized each time. */
const KEPT_PAGES_PER_LIST = 256;

/**
 * One page of a list that a cache keeps (reference data read on every address or shop form: countries,
 * shops), sent as bytes kept beside that list: each page is serialized once by the route's own serializer,
 * not for every answer (for twenty countries that pass, and measuring and encoding a text with one `ä`,
 * were about a sixth of the request's CPU), and its paging headers are made again only for another URL.
 * The cache's next load is a new list, whose pages start anew.
 */
export function sendPageOfKeptList(
  request: FastifyRequest,
  reply: FastifyReply,
  query: PagingQuery,
  all: readonly unknown[],
): FastifyReply {
  const page = pageRequest(query);
  let pages = keptPages.get(all);
  if (pages === undefined) {
    pages = new Map();
    keptPages.set(all, pages);
  }
  // per-page is at most MAIN_API_PAGING.maxPerPage (100): one number names the page.
  const key = page.offset * 128 + page.perPage;
  let kept = pages.get(key);
  if (kept !== undefined && kept.url === request.url) {
    for (const [name, value] of kept.headers) reply.header(name, value);
  } else {
    setPaginationHeaders(request, reply, page, all.length);
    kept = {
      url: request.url,
      // The routes' serializer (serialization.ts) writes text; kept as bytes of their own (jsonBytes), not
      // a slice of Node's shared pool, which a short Buffer.from(text) is and would keep alive whole.
      body: kept?.body ?? jsonBytes([reply.serialize(all.slice(page.offset, page.offset + page.perPage)) as string]),
      headers: PAGING_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])),
    };
    // Pages past the end are all `[]`: only pages with items are kept, so a client walking page numbers keeps nothing.
    if (page.offset < all.length && pages.size < KEPT_PAGES_PER_LIST) pages.set(key, kept);
  }
  return sendJsonText(reply, kept.body);
}
