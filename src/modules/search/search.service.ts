import type { Db, DatabaseHandle } from '../../db/database.js';
import { QueryBudgetExceeded, withinBudget, type QueryBudget } from '../../db/query-budget.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import { audienceKey, countStoreListing, seesBusinessCatalogue, type CatalogueContext } from '../catalogue/index.js';
import { pricingKey } from '../pricing/index.js';
import type { Matches, NameKind, SearchEngine, TextQuery, Viewer } from './engine.js';
import { createEngine } from './engines.js';
import { emptyFacets, facetCounts, facetValueCounts, type FacetCounts, type FacetRequest } from './facets.repository.js';
import {
  backgroundFolder,
  BACKLOG_LIMIT,
  FOLD_BATCH,
  foldBatch,
  readState,
  type BackgroundFolder,
  type IndexState,
  type SearchLog,
} from './index-maintenance.js';
import { noteFirstBuild } from './index-readiness.js';
import { queryKey, type ParsedQuery } from './query-text.js';
import { bestFound, countFound, findsAny, foundPage, matchesMoreThan } from './found-products.repository.js';
import {
  forCounting,
  needsPrice,
  withExactTitles,
  type SearchFilter,
  type SearchScope,
  type SearchSort,
  type TextFilter,
} from './search-query.js';
import type { SearchConfig } from './search.config.js';
import { searchTooSlow, searchUnavailable } from './search.errors.js';
import { namesById, type NamedRef } from './names.repository.js';
import { suggestNames } from './suggestions.js';

// The search module's front: is the index able to answer (503 otherwise), what does the text
// match (full text, or typo-tolerant on PostgreSQL when nothing matches exactly), and per-process
// caches of answers keyed by the normalised query, so popular searches cost a map lookup.

/** Results past this many are not served (a page reaching past it is cut there): nobody reads them, and sorting that deep costs. */
export const RESULT_WINDOW = 10_000;
/** Typo matching looks at this many of the closest products at most. */
const SIMILAR_LIMIT = 200;
/**
 * Autocomplete orders by relevance this many of the best text matches only (the engine's text rank picks
 * them): a two-letter prefix matches tens of thousands of products, and a suggestion needs the best few,
 * not an exact order of all of them.
 */
const SUGGEST_CANDIDATES = 300;
const RESULT_CACHE_ENTRIES = 20_000;
/** Suggestions and retail facets are kept this many times the catalogue cache period (6 minutes by default). */
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

/** A catalogue context with the time budget of the request's search reads (none: unbounded, for tools). */
export type SearchContext = CatalogueContext & { budget?: QueryBudget };

/** Every answer is for a context: the caller (visibility, prices), the store, the language and the action's time. */
export interface SearchService {
  /** Throws searchUnavailable (a 503) unless the index can answer at `now`; folds a few queued changes first. */
  ready(now: number): Promise<void>;
  products(context: SearchContext, input: SearchInput, offset: number, limit: number): Promise<ProductHits>;
  /**
   * The best few products for a partly typed text (ranked among the SUGGEST_CANDIDATES best text matches, or among
   * all of those the caller sees where those hold fewer of them).
   */
  suggestProducts(context: SearchContext, text: ParsedQuery, limit: number): Promise<number[]>;
  facets(context: SearchContext, input: SearchInput, facets: FacetRequest): Promise<FacetAnswer>;
  facetValues(context: SearchContext, input: SearchInput, kind: NameKind, term: TextQuery, limit: number): Promise<NamedCount[]>;
  names(context: SearchContext, kind: NameKind, term: TextQuery, limit: number): Promise<NamedRef[]>;
  readonly engine: SearchEngine;
  readonly background: BackgroundFolder;
}

export interface SearchServiceDeps {
  database: DatabaseHandle;
  config: SearchConfig;
  log: SearchLog;
}

export function createSearchService({ database, config, log }: SearchServiceDeps): SearchService {
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
  // search_product mirrors product and product_store in the writer's transaction (its triggers; a rebuild in one
  // transaction), so a search without text or filter finds exactly the store's whole list: store_listing's total,
  // a count over its (store, audience) key, where counting the search's own rows read every visible document. It runs
  // on the search's db, within the request's time budget: it grows with the store.
  const keptTotal = (context: SearchContext, input: SearchInput) =>
    input.text.kind === 'none' && Object.values(input.filter).every((value) => value === undefined)
      ? (db: Db) => countStoreListing(db, context.store.code, audienceKey(context.caller))
      : undefined;
  let state: { value: IndexState; expires: number } | undefined;
  let folding: Promise<unknown> | undefined;

  /** Index errors of a missing table (an old or damaged database) are a 503, like a rebuild. */
  const indexGuarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (engine.isMissingIndex(error)) {
        log.error({ err: error }, 'search index is missing: run `search reindex` (after `migrate`)');
        throw searchUnavailable();
      }
      throw error;
    }
  };

  /** The reads of a request, within its time budget (db/query-budget.ts): past it the answer is a 503 that says to narrow the search. */
  const guarded = <T>(context: SearchContext, work: (db: Db) => Promise<T>): Promise<T> =>
    indexGuarded(async () => {
      try {
        // A request's reads may go to a read replica; the index upkeep stays on the primary.
        return await withinBudget(database.replicaReads, context.budget, work);
      } catch (error) {
        if (error instanceof QueryBudgetExceeded) throw searchTooSlow();
        throw error;
      }
    });

  async function ready(now: number): Promise<void> {
    if (!state || state.expires <= now) {
      const read = await indexGuarded(async () => noteFirstBuild(db, engine, await readState(db), now));
      state = { value: read, expires: now + stateTtl };
    }
    const { status, backlog } = state.value;
    if (status !== 'ready' || backlog > BACKLOG_LIMIT) throw searchUnavailable();
    if (backlog > 0) {
      // One fold at a time per process; concurrent searches wait for it instead of starting their own.
      folding ??= indexGuarded(() => foldBatch(database, engine, FOLD_BATCH, now)).finally(() => (folding = undefined));
      await folding;
      state = undefined;
    }
  }

  const scopeOf = ({ store, caller, now, budget }: SearchContext, filter: SearchFilter, text: TextFilter): SearchScope => ({
    storeCode: store.code,
    caller,
    store,
    now,
    filter,
    text,
    budget,
  });

  /**
   * How the text narrows the products. On PostgreSQL, a text that matches nothing the caller can
   * see in the store is matched by similarity instead (typos); the choice does not depend on the
   * other filters, so a search, its facets and its pages all agree.
   */
  async function textFilter(db: Db, context: SearchContext, text: ParsedQuery, top?: number): Promise<TextFilter | 'nothing'> {
    if (text.kind === 'none') return { kind: 'none' };
    if (text.kind === 'codes') return { kind: 'codes', codes: text.codes };
    if (text.terms.length === 0) return 'nothing';
    const unranked: Matches = engine.matchProducts(text, 0, context.budget);
    const ranked = engine.matchProducts(text, top, context.budget);
    const matches = top === undefined ? ranked : withExactTitles(ranked, text.titleKey);
    const exact: TextFilter = { kind: 'match', matches, unranked, query: text, titleKey: text.titleKey };
    const similar = engine.similarProducts(text, SIMILAR_LIMIT);
    if (!similar) return exact;
    const key = `${context.store.code}|${audienceKey(context.caller)}|${queryKey(text)}`;
    const mode = await modes.get(key, async () => {
      return (await findsAny(db, engine, scopeOf(context, {}, { ...exact, matches: unranked }))) ? 'match' : 'similar';
    });
    return mode === 'match' ? exact : { kind: 'match', matches: similar, unranked: similar };
  }

  const cacheKey = ({ store, caller }: CatalogueContext, input: SearchInput, byPrice: boolean) =>
    `${store.code}|${byPrice ? pricingKey(caller) : audienceKey(caller)}|${queryKey(input.text)}|${JSON.stringify(input.filter)}`;

  async function count(db: Db, ranked: SearchScope): Promise<number> {
    return countFound(db, engine, forCounting(ranked));
  }

  /** The caller as the engine can narrow matches to them now, or undefined where it cannot (engine.narrowsToViewer). */
  async function viewerOf(db: Db, context: SearchContext): Promise<Viewer | undefined> {
    return (await engine.narrowsToViewer(db)) ? { storeCode: context.store.code, audience: audienceKey(context.caller) } : undefined;
  }

  return {
    engine,
    background: backgroundFolder(database, engine, log),
    ready,
    async products(context, input, offset, wanted) {
      // A page that ends past the window holds the results up to its end: empty, it hid them from a client paging through.
      const limit = Math.max(0, Math.min(wanted, RESULT_WINDOW - offset));
      const filterKey = cacheKey(context, input, needsPrice(input.filter));
      const key = `${cacheKey(context, input, needsPrice(input.filter, input.sort))}|${input.sort}|${offset}|${limit}`;
      return guarded(context, async (db) => {
        const text = await textFilter(db, context, input.text);
        if (text === 'nothing') return { ids: [], total: 0 };
        const scope = scopeOf(context, input.filter, text);
        const kept = keptTotal(context, input);
        const total = () => counts.get(filterKey, () => (kept ? kept(db) : count(db, scope)));
        // Past the window the page is empty without sorting that deep.
        if (limit === 0) return { ids: [], total: await total() };
        const page = (withTotal: boolean) => pages.get(key, () => foundPage(db, engine, scope, input.sort, offset, limit, withTotal));
        // The count is kept apart from the pages: paging and sorting the same search reuse it.
        if (!kept && engine.countsWithPage(text.kind === 'match') && counts.peek(filterKey) === undefined) {
          const found = await page(true);
          // A page read without its total (cached while the count was) has a null total too.
          const all = found.total ?? (offset === 0 && found.ids.length === 0 ? 0 : await total());
          counts.set(filterKey, all);
          return { ids: found.ids, total: all };
        }
        const [found, all] = await Promise.all([page(false), total()]);
        return { ids: found.ids, total: all };
      });
    },
    async suggestProducts(context, text, limit) {
      const key = `${context.store.code}|${audienceKey(context.caller)}|${queryKey(text)}|${limit}`;
      return suggestions.get(key, () =>
        guarded(context, async (db) => {
          const filter = await textFilter(db, context, text, text.kind === 'text' ? SUGGEST_CANDIDATES : undefined);
          if (filter === 'nothing') return [];
          const best = await bestFound(db, engine, scopeOf(context, {}, filter), limit);
          // The shortlist is ranked over every store's and audience's products, before visibility: where products the
          // caller does not see crowd it (hidden ones, another store's), it may hold too few of the caller's. Then, and
          // only where the text matches more than the shortlist held, every match the caller sees is ranked (by tier, as
          // search does). A common word fills the suggestions from the shortlist and never gets here. The matches are
          // narrowed to the caller's by the text index where it can (SQLite), so a WEB2 shopper's text common in WEB
          // does not rank and look up WEB's matches. The shortlist itself is not narrowed: that would rank a crowded
          // caller's suggestions by text rank among their 300 best instead of as now (bench/RESULTS.md, 2026-12-01).
          if (best.length >= limit || filter.kind !== 'match' || !filter.query) return best;
          if (!(await matchesMoreThan(db, filter.unranked, SUGGEST_CANDIDATES))) return best;
          const every = engine.matchProducts(filter.query, undefined, context.budget, await viewerOf(db, context));
          return bestFound(db, engine, scopeOf(context, {}, { ...filter, matches: every }), limit);
        }),
      );
    },
    async facets(context, input, facets) {
      const key = `${cacheKey(context, input, true)}|${facets.parentCategoryId}|${facets.limit}`;
      return (seesBusinessCatalogue(context.caller) ? businessFacets : retailFacets).get(key, () =>
        guarded(context, async (db) => {
          const text = await textFilter(db, context, input.text);
          const none = { person: new Map(), publisher: new Map(), series: new Map() };
          if (text === 'nothing') return { counts: emptyFacets(), total: 0, names: none };
          const scope = scopeOf(context, input.filter, text);
          const counts = await facetCounts(db, engine, forCounting(scope), facets);
          const [person, publisher, series] = await Promise.all([
            namesById(
              db,
              'person',
              counts.persons.map((c) => c.value),
            ),
            namesById(
              db,
              'publisher',
              counts.publishers.map((c) => c.value),
            ),
            namesById(
              db,
              'series',
              counts.series.map((c) => c.value),
            ),
          ]);
          return { counts, total: counts.capped ? await count(db, scope) : counts.counted, names: { person, publisher, series } };
        }),
      );
    },
    async facetValues(context, input, kind, term, limit) {
      const key = `${cacheKey(context, input, needsPrice(input.filter))}|${kind}|${term.terms.join(' ')}${term.prefix ? '*' : ''}|${limit}`;
      return (seesBusinessCatalogue(context.caller) ? businessValues : retailValues).get(key, () =>
        guarded(context, async (db) => {
          const text = await textFilter(db, context, input.text);
          if (text === 'nothing' || term.terms.length === 0) return [];
          const scope = scopeOf(context, input.filter, text);
          const counted = forCounting(scope);
          let found = await facetValueCounts(db, engine, counted, kind, engine.matchNames(kind, term, undefined, context.budget), limit);
          const similar = found.length === 0 ? engine.similarNames(kind, term, SIMILAR_LIMIT) : undefined;
          if (similar) found = await facetValueCounts(db, engine, counted, kind, similar, limit);
          const names = await namesById(
            db,
            kind,
            found.map((c) => c.value),
          );
          return found.flatMap((c) => {
            const ref = names.get(c.value);
            return ref ? [{ ...ref, count: c.count }] : [];
          });
        }),
      );
    },
    async names(context, kind, term, limit) {
      const { store, caller } = context;
      const key = `${store.code}|${audienceKey(caller)}|${kind}|${term.terms.join(' ')}${term.prefix ? '*' : ''}|${limit}`;
      return nameSuggestions.get(key, () =>
        guarded(context, (db) => suggestNames(db, engine, kind, term, { storeCode: store.code, caller, budget: context.budget }, limit)),
      );
    },
  };
}
