import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app.js';
import { setCacheHeaders, type CacheAudience } from '../../http/http-cache.js';
import { setPaginationHeaders, type PageRequest } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import { ttlCache } from '../../infra/ttl-cache.js';
import type { Language } from '../../i18n/index.js';
import { callerResolver, type Caller } from './caller.js';
import { readCategoryTree, type CategoryTree } from './category-tree.js';
import { baseReader, companyPrices, isVisibleTo, loadBases, toCard, type BaseCache, type PriceContext, type ProductBase, type ProductCard } from './product-cards.js';
import { productPage, type ProductFilter, type ProductListCaches, type ProductSort } from './product-query.js';
import { bindingNamesCache, type BindingNames } from './reference-data.js';

// Bounds of the per-process caches: a few tens of MB at most, whatever the catalogue's size.
const BASE_CACHE_ENTRIES = 50_000;
const LIST_CACHE_ENTRIES = 20_000;

/** What the catalogue routes share: the caller, cached reading, pricing and the list shape. */
export interface Catalogue {
  caller(request: FastifyRequest): Promise<Caller>;
  /** Cache-Control (and so ETag and 304) for an answer to this caller. */
  cacheFor(reply: FastifyReply, caller: Caller): void;
  base(storeCode: string, id: number): Promise<ProductBase | undefined>;
  /** The products the caller may see, priced for them, in the order of `ids`. */
  cards(request: FastifyRequest, caller: Caller, ids: readonly number[]): Promise<ProductCard[]>;
  /** One page of a product list with its pagination headers. */
  listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    caller: Caller,
    filter: ProductFilter,
    sort: ProductSort,
    page: PageRequest,
  ): Promise<ProductCard[]>;
  priceContext(request: FastifyRequest, caller: Caller, ids: readonly number[]): Promise<PriceContext>;
  categoryTree(storeCode: string, language: Language): Promise<CategoryTree>;
  bindings(): Promise<BindingNames>;
}

export function createCatalogue({ database, config }: AppDeps): Catalogue {
  const db = database.db;
  const ttl = config.catalogueCacheTtlMs;
  const bases: BaseCache = boundedCache(ttl, BASE_CACHE_ENTRIES);
  const readBases = baseReader(database);
  const listTtl = config.catalogueListCacheTtlMs;
  const lists: ProductListCaches = { counts: boundedCache(listTtl, LIST_CACHE_ENTRIES), pages: boundedCache(listTtl, LIST_CACHE_ENTRIES) };
  const bindings = bindingNamesCache(db, ttl);
  const trees = ttlCache(ttl, (key: string) => {
    const [storeCode, language] = key.split(':') as [string, Language];
    return readCategoryTree(db, storeCode, language);
  });
  const resolveCaller = callerResolver(database);

  const priceContext = async (request: FastifyRequest, caller: Caller, ids: readonly number[]): Promise<PriceContext> => ({
    caller,
    store: requestStore(request),
    now: request.actionTime,
    companyPrices: await companyPrices(db, caller, ids),
  });

  const cards: Catalogue['cards'] = async (request, caller, ids) => {
    const store = requestStore(request);
    const [found, context, names] = await Promise.all([loadBases(readBases, bases, store.code, ids), priceContext(request, caller, ids), bindings()]);
    const result: ProductCard[] = [];
    for (const id of ids) {
      const base = found.get(id);
      if (base && isVisibleTo(base, caller)) result.push(toCard(base, context, request.language, names));
    }
    return result;
  };

  return {
    caller: resolveCaller,
    cacheFor(reply, caller) {
      setCacheHeaders(reply, audienceOf(caller));
    },
    async base(storeCode, id) {
      return (await loadBases(readBases, bases, storeCode, [id])).get(id);
    },
    cards,
    async listPage(request, reply, caller, filter, sort, page) {
      const store = requestStore(request);
      const { ids, total } = await productPage(db, lists, {
        storeCode: store.code,
        caller,
        filter,
        sort,
        offset: page.offset,
        limit: page.perPage,
        now: request.actionTime,
      });
      setPaginationHeaders(request, reply, page, total);
      return cards(request, caller, ids);
    },
    priceContext,
    categoryTree: (storeCode, language) => trees.get(`${storeCode}:${language}`),
    bindings,
  };
}

/** The filters a product list and a search share, from their query: a category means its subtree. */
export async function browseFilter(
  catalogue: Catalogue,
  request: FastifyRequest,
  query: { categoryId?: number; personId?: number; publisherId?: number; seriesId?: number; productListId?: number; campaignId?: number },
): Promise<ProductFilter> {
  const categoryIds =
    query.categoryId === undefined ? undefined : (await catalogue.categoryTree(requestStore(request).code, request.language)).subtreeIds(query.categoryId);
  return {
    categoryIds,
    personId: query.personId,
    publisherId: query.publisherId,
    seriesId: query.seriesId,
    productListId: query.productListId,
    campaignId: query.campaignId,
  };
}

function audienceOf(caller: Caller): CacheAudience {
  if (caller.kind === 'GUEST') return 'public';
  return caller.kind === 'SIMPLE' ? 'private' : 'none';
}
