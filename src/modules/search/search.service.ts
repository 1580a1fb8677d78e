import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppDeps } from '../../app.js';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import { seesBusinessCatalogue, type Caller } from '../catalogue/caller.js';
import { audienceKey } from '../catalogue/visibility.js';
import { pricingKey } from '../pricing/index.js';
import { createEngine, type Matches, type NameKind, type SearchEngine, type TextQuery } from './engine.js';
import { emptyFacets, facetCounts, facetValueCounts, type FacetCounts, type FacetRequest } from './facets.js';
import { backgroundFolder, BACKLOG_LIMIT, foldBatch, readState, type BackgroundFolder, type IndexState } from './index-maintenance.js';
import { queryKey, type ParsedQuery } from './query-text.js';
import { forCounting, needsPrice, ordered, priceFor, scopedProducts, type SearchFilter, type SearchScope, type SearchSort, type TextFilter } from './search-query.js';
import { namesById, suggestNames, type NamedRef } from './suggestions.js';

// The search module's front: is the index able to answer (503 otherwise), what does the text
// match (full text, or typo-tolerant on PostgreSQL when nothing matches exactly), and per-process
// caches of answers keyed by the normalised query, so popular searches cost a map lookup.

/** Pages past this many results are empty: nobody reads them, and sorting that deep costs. */
export const RESULT_WINDOW = 10_000;
/** Typo matching looks at this many of the closest products at most. */
const SIMILAR_LIMIT = 200;
/**
 * Autocomplete ranks this many of the best text matches only: a two-letter prefix matches tens of
 * thousands of products, and a suggestion needs the best few, not an exact order of all of them.
 */
const SUGGEST_CANDIDATES = 300;
const RESULT_CACHE_ENTRIES = 20_000;
/** Suggestions and retail facets are kept this many times the catalogue cache period (a minute by default). */
const SUGGESTION_TTL_FACTOR = 12;
const FACET_CACHE_ENTRIES = 5_000;
/** How long a process trusts the index state it read (a rebuild shows within this time). */
const STATE_TTL_MS = 1000;

export interface SearchInput {
  text: ParsedQuery;
  filter: SearchFilter;
  sort: SearchSort;
}

export interface ProductHits {
  ids: number[];
  total: number;
}

export interface FacetAnswer {
  counts: FacetCounts;
  /** Products the search finds (exact, also when the counts are capped). */
  total: number;
  names: Record<NameKind, Map<number, NamedRef>>;
}

export type NamedCount = NamedRef & { count: number };

export interface SearchService {
  /** Throws a 503 (X-Search-Available: 0) unless the index can answer; folds a few queued changes first. */
  ready(): Promise<void>;
  products(request: FastifyRequest, caller: Caller, input: SearchInput, offset: number, limit: number): Promise<ProductHits>;
  /** The best few products for a partly typed text (ranked among the SUGGEST_CANDIDATES best text matches). */
  suggestProducts(request: FastifyRequest, caller: Caller, text: ParsedQuery, limit: number): Promise<number[]>;
  facets(request: FastifyRequest, caller: Caller, input: SearchInput, facets: FacetRequest): Promise<FacetAnswer>;
  facetValues(request: FastifyRequest, caller: Caller, input: SearchInput, kind: NameKind, term: TextQuery, limit: number): Promise<NamedCount[]>;
  names(request: FastifyRequest, caller: Caller, kind: NameKind, term: TextQuery, limit: number): Promise<NamedRef[]>;
  readonly engine: SearchEngine;
  readonly background: BackgroundFolder;
}

export function unavailable(): HttpError {
  return new HttpError(503, 'catalogue.searchUnavailable', {}, { 'X-Search-Available': '0', 'Retry-After': '5', 'Cache-Control': 'no-store' });
}

export function createSearchService({ database, config }: AppDeps, log: FastifyBaseLogger): SearchService {
  const db = database.db;
  const engine = createEngine(database);
  const ttl = config.catalogueCacheTtlMs;
  const counts = boundedCache<string, number>(ttl, RESULT_CACHE_ENTRIES);
  const pages = boundedCache<string, { ids: number[]; total: number | null }>(ttl, RESULT_CACHE_ENTRIES);
  // Suggestions may be a little older than search answers: visibility and prices are applied to them per request anyway.
  const suggestions = boundedCache<string, number[]>(ttl * SUGGESTION_TTL_FACTOR, RESULT_CACHE_ENTRIES);
  // Dynamic filters of guests and retail customers may be minutes old (domain notes); those of
  // business and wholesale customers are kept only as long as everything else.
  const retailFacets = boundedCache<string, FacetAnswer>(ttl * SUGGESTION_TTL_FACTOR, FACET_CACHE_ENTRIES);
  const businessFacets = boundedCache<string, FacetAnswer>(ttl, FACET_CACHE_ENTRIES);
  const retailValues = boundedCache<string, NamedCount[]>(ttl * SUGGESTION_TTL_FACTOR, FACET_CACHE_ENTRIES);
  const businessValues = boundedCache<string, NamedCount[]>(ttl, FACET_CACHE_ENTRIES);
  const nameSuggestions = boundedCache<string, NamedRef[]>(ttl * SUGGESTION_TTL_FACTOR, RESULT_CACHE_ENTRIES);
  const modes = boundedCache<string, 'match' | 'similar'>(ttl, RESULT_CACHE_ENTRIES);
  const stateTtl = Math.min(ttl, STATE_TTL_MS);
  let state: { value: IndexState; expires: number } | undefined;
  let folding: Promise<unknown> | undefined;

  /** Index errors of a missing table (an old or damaged database) are a 503, like a rebuild. */
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (engine.isMissingIndex(error)) {
        log.error({ err: error }, 'search index is missing: run `search reindex` (after `migrate`)');
        throw unavailable();
      }
      throw error;
    }
  };

  async function ready(): Promise<void> {
    const now = Date.now();
    if (!state || state.expires <= now) state = { value: await guarded(() => readState(db)), expires: now + stateTtl };
    const { status, backlog } = state.value;
    if (status !== 'ready' || backlog > BACKLOG_LIMIT) throw unavailable();
    if (backlog > 0) {
      // One fold at a time per process; concurrent searches wait for it instead of starting their own.
      folding ??= guarded(() => foldBatch(database, engine)).finally(() => (folding = undefined));
      await folding;
      state = undefined;
    }
  }

  const scopeOf = (request: FastifyRequest, caller: Caller, filter: SearchFilter, text: TextFilter): SearchScope => {
    const store = requestStore(request);
    return { storeCode: store.code, caller, store, now: request.actionTime, filter, text };
  };

  /**
   * How the text narrows the products. On PostgreSQL, a text that matches nothing the caller can
   * see in the store is matched by similarity instead (typos); the choice does not depend on the
   * other filters, so a search, its facets and its pages all agree.
   */
  async function textFilter(request: FastifyRequest, caller: Caller, text: ParsedQuery, top?: number): Promise<TextFilter | 'nothing'> {
    if (text.kind === 'none') return { kind: 'none' };
    if (text.kind === 'codes') return { kind: 'codes', codes: text.codes };
    if (text.terms.length === 0) return 'nothing';
    const unranked: Matches = engine.matchProducts(text, 0);
    const exact: TextFilter = { kind: 'match', matches: engine.matchProducts(text, top), unranked };
    const similar = engine.similarProducts(text, SIMILAR_LIMIT);
    if (!similar) return exact;
    const key = `${requestStore(request).code}|${audienceKey(caller)}|${queryKey(text)}`;
    const mode = await modes.get(key, async () => {
      const any = await scopedProducts(db, engine, scopeOf(request, caller, {}, { ...exact, matches: unranked })).select('sp.id').limit(1).execute();
      return any.length > 0 ? 'match' : 'similar';
    });
    return mode === 'match' ? exact : { kind: 'match', matches: similar, unranked: similar };
  }

  const cacheKey = (request: FastifyRequest, caller: Caller, input: SearchInput, byPrice: boolean) =>
    `${requestStore(request).code}|${byPrice ? pricingKey(caller) : audienceKey(caller)}|${queryKey(input.text)}|${JSON.stringify(input.filter)}`;

  async function count(ranked: SearchScope): Promise<number> {
    const scope = forCounting(ranked);
    const row = await scopedProducts(db, engine, scope).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  return {
    engine,
    background: backgroundFolder(database, engine, log),
    ready,
    async products(request, caller, input, offset, limit) {
      const filterKey = cacheKey(request, caller, input, needsPrice(input.filter));
      const key = `${cacheKey(request, caller, input, needsPrice(input.filter, input.sort))}|${input.sort}|${offset}|${limit}`;
      return guarded(async () => {
        const text = await textFilter(request, caller, input.text);
        if (text === 'nothing') return { ids: [], total: 0 };
        const scope = scopeOf(request, caller, input.filter, text);
        const total = () => counts.get(filterKey, () => count(scope));
        // Past the window the page is empty without sorting that deep.
        if (offset + limit > RESULT_WINDOW) return { ids: [], total: await total() };
        const page = (withTotal: boolean) =>
          pages.get(key, async () => {
            const price = priceFor(engine, scope, input.sort);
            const columns = withTotal ? [sql<number>`sp.id`.as('id'), sql<number>`count(*) over ()`.as('total')] : [sql<number>`sp.id`.as('id')];
            const rows = (await ordered(scopedProducts(db, engine, scope, price).select(columns), input.sort, scope, price).offset(offset).limit(limit).execute()) as Array<{
              id: number;
              total?: number;
            }>;
            return { ids: rows.map((row) => Number(row.id)), total: rows[0]?.total === undefined ? null : Number(rows[0].total) };
          });
        if (engine.countsWithPage) {
          const found = await page(true);
          return { ids: found.ids, total: found.total ?? (offset === 0 ? 0 : await total()) };
        }
        // The count is kept apart from the pages: paging and sorting the same search reuse it.
        const [found, all] = await Promise.all([page(false), total()]);
        return { ids: found.ids, total: all };
      });
    },
    async suggestProducts(request, caller, text, limit) {
      const key = `${requestStore(request).code}|${audienceKey(caller)}|${queryKey(text)}|${limit}`;
      return suggestions.get(key, () =>
        guarded(async () => {
          const filter = await textFilter(request, caller, text, text.kind === 'text' ? SUGGEST_CANDIDATES : undefined);
          if (filter === 'nothing') return [];
          const scope = scopeOf(request, caller, {}, filter);
          const rows = await ordered(scopedProducts(db, engine, scope).select('sp.id'), 'relevance', scope, undefined).limit(limit).execute();
          return rows.map((row) => Number((row as { id: number }).id));
        }),
      );
    },
    async facets(request, caller, input, facets) {
      const key = `${cacheKey(request, caller, input, true)}|${facets.parentCategoryId}|${facets.limit}`;
      return (seesBusinessCatalogue(caller) ? businessFacets : retailFacets).get(key, () =>
        guarded(async () => {
          const text = await textFilter(request, caller, input.text);
          const none = { person: new Map(), publisher: new Map(), series: new Map() };
          if (text === 'nothing') return { counts: emptyFacets(), total: 0, names: none };
          const scope = scopeOf(request, caller, input.filter, text);
          const counts = await facetCounts(db, engine, forCounting(scope), facets);
          const [person, publisher, series] = await Promise.all([
            namesById(db, 'person', counts.persons.map((c) => c.value)),
            namesById(db, 'publisher', counts.publishers.map((c) => c.value)),
            namesById(db, 'series', counts.series.map((c) => c.value)),
          ]);
          return { counts, total: counts.capped ? await count(scope) : counts.counted, names: { person, publisher, series } };
        }),
      );
    },
    async facetValues(request, caller, input, kind, term, limit) {
      const key = `${cacheKey(request, caller, input, needsPrice(input.filter))}|${kind}|${term.terms.join(' ')}${term.prefix ? '*' : ''}|${limit}`;
      return (seesBusinessCatalogue(caller) ? businessValues : retailValues).get(key, () =>
        guarded(async () => {
          const text = await textFilter(request, caller, input.text);
          if (text === 'nothing' || term.terms.length === 0) return [];
          const scope = scopeOf(request, caller, input.filter, text);
          const counted = forCounting(scope);
          let found = await facetValueCounts(db, engine, counted, kind, engine.matchNames(kind, term), limit);
          const similar = found.length === 0 ? engine.similarNames(kind, term, SIMILAR_LIMIT) : undefined;
          if (similar) found = await facetValueCounts(db, engine, counted, kind, similar, limit);
          const names = await namesById(db, kind, found.map((c) => c.value));
          return found.flatMap((c) => {
            const ref = names.get(c.value);
            return ref ? [{ ...ref, count: c.count }] : [];
          });
        }),
      );
    },
    async names(request, caller, kind, term, limit) {
      const key = `${requestStore(request).code}|${audienceKey(caller)}|${kind}|${term.terms.join(' ')}${term.prefix ? '*' : ''}|${limit}`;
      return nameSuggestions.get(key, () => guarded(() => suggestNames(db, engine, kind, term, { storeCode: requestStore(request).code, caller }, limit)));
    },
  };
}
