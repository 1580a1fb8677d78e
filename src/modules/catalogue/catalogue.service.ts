import type { DatabaseHandle } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import { boundedCache, boundedCaches } from '../../infra/bounded-cache.js';
import { campaignRunsAt, leastFor, type StoreDiscounts } from '../pricing/index.js';
import { buildCategoryTree, isSubtreeList, type CategoryTree } from './browse/category-tree.js';
import { categoryRows } from './browse/category.repository.js';
import { GUEST, type Caller } from './caller.js';
import type { CatalogueConfig } from './catalogue.config.js';
import { readBindingNames, type BindingNames } from './products/binding-names.repository.js';
import { callerPrice, toCard } from './products/product-card.mapper.js';
import { campaignChangeAt, cardText, cardTextOnce } from './products/product-card.text.js';
import { jsonArrayBytes } from '../../http/serialization.js';
import { baseReader, companyPrices } from './products/product-card.repository.js';
import { findProductIdByCode, readCampaignWindow, readStoreCampaignWindows, type CampaignWindow } from './products/product.repository.js';
import type { BaseCache, PriceContext, ProductBase, ProductCard } from './products/product-card.types.js';
import { categoryListingReader, rebuildCategoryListing } from './browse/category-listing.repository.js';
import { storeListingReader } from './browse/store-listing.repository.js';
import {
  countVisibleProducts,
  productPage,
  type KeptList,
  type ListPricing,
  type ProductFilter,
  type ProductListCaches,
  type ProductSort,
} from './product-query.js';
import { referenceCache, referenceVersions } from './reference-cache.js';
import { audienceKey, isVisibleTo } from './visibility.js';

// Bounds of the per-process caches, whatever the catalogue's size. A kept base also keeps its cards'
// texts (product-card.text.ts: about 0.6 KB for each language and pricing level in use), so the
// bases of a store with their texts stay within about 100 MB with two languages and a few levels.
const BASE_CACHE_ENTRIES_PER_STORE = 25_000;
const LIST_CACHE_ENTRIES = 20_000;
const COUNT_CACHE_ENTRIES = 20_000;
const CAMPAIGN_CACHE_ENTRIES = 2_000;
const STORE_CAMPAIGN_CACHE_ENTRIES = 100;

/** What the catalogue needs of the store a request is for (the store settings have it all). */
export interface CatalogueStore extends StoreDiscounts {
  code: string;
  currency: string;
}

/** Who reads the catalogue, in which store and language, and when: resolved once per request by the routes. */
export interface CatalogueContext {
  caller: Caller;
  store: CatalogueStore;
  language: Language;
  /** The action's time, Unix ms. */
  now: number;
}

/** Which slice of a list: what a page request gives. */
export interface ListSlice {
  offset: number;
  perPage: number;
}

/** What the catalogue's routes (and search's) share: cached reading, visibility, pricing and the list shape. */
export interface Catalogue {
  base(storeCode: string, id: number): Promise<ProductBase | undefined>;
  /** The product if the caller may see it in the store; undefined when it is missing or hidden from them. */
  visibleBase(context: CatalogueContext, id: number): Promise<ProductBase | undefined>;
  /** The products the caller may see, priced for them, in the order of `ids`. */
  cards(context: CatalogueContext, ids: readonly number[]): Promise<ProductCard[]>;
  /**
   * For a list kept outside the catalogue (a wishlist): how many of `ids` the caller may see, and
   * the slice of those as card texts (JSON of ProductCardSchema, priced for the caller), in the
   * order of `ids`. One read of the bases serves the count and the page.
   */
  visibleCardTexts(
    context: CatalogueContext,
    ids: readonly number[],
    slice: ListSlice,
  ): Promise<{ total: number; cards: Array<{ id: number; text: Buffer }> }>;
  /**
   * The ids of `ids` the caller may see, read from the database rather than the cache: for a
   * decision that removes what the cache may be behind on (a full wishlist gives up hidden rows,
   * and a product shown again a moment ago must not be among them).
   */
  visibleIdsNow(context: CatalogueContext, ids: readonly number[]): Promise<number[]>;
  /**
   * `cards` as the JSON text (UTF-8 bytes) of an array of ProductCardSchema, for routes that send it
   * as it is (http/serialization.ts sendJsonText): all of a card but its price is written once per kept base.
   */
  cardsText(context: CatalogueContext, ids: readonly number[]): Promise<Buffer>;
  /** cardsText, and when a price on the cards may change (as pricesChangeAt gives it, from the same bases). */
  cardsTextUntil(context: CatalogueContext, ids: readonly number[]): Promise<{ text: Buffer; changesAt: number }>;
  /** One page of a product list and how many products the list has in all. */
  listPage(
    context: CatalogueContext,
    filter: ProductFilter,
    sort: ProductSort,
    slice: ListSlice,
  ): Promise<{ cards: ProductCard[]; total: number }>;
  /**
   * listPage with the cards as text (cardsText): what a list route sends; `changesAt` as
   * pricesChangeAt gives it for the page's products (how long the answer may be kept).
   */
  listPageText(
    context: CatalogueContext,
    filter: ProductFilter,
    sort: ProductSort,
    slice: ListSlice,
  ): Promise<{ text: Buffer; total: number; changesAt: number }>;
  /**
   * The first instant after the context's time at which a campaign price of one of these products
   * starts or ends, so a price shown now may change (Infinity: none); for answers kept for a while.
   */
  pricesChangeAt(context: CatalogueContext, ids: readonly number[]): Promise<number>;
  /** How many products of the filter the caller may see: the count a category, person, ... page shows. */
  productCount(context: CatalogueContext, filter: ProductFilter): Promise<number>;
  priceContext(context: CatalogueContext, ids: readonly number[]): Promise<PriceContext>;
  /** `version`: the category version a statement of the caller just read, if it did (reference-cache.ts). */
  categoryTree(storeCode: string, language: Language, version?: number): Promise<CategoryTree>;
  /** `version`: the binding version a statement of the caller just read, if it did. */
  bindings(version?: number): Promise<BindingNames>;
  /** Whether the campaign is the store's, active and running at the context's time (what a campaignId filter lists). */
  campaignRuns(context: Pick<CatalogueContext, 'store' | 'now'>, id: number): Promise<boolean>;
  /** Whether the product with this back-office code is one the public (or the business) audience may see in the store. */
  seesProductCode(storeCode: string, code: string, businessCatalogue: boolean): Promise<boolean>;
}

export interface CatalogueServiceDeps {
  database: DatabaseHandle;
  config: CatalogueConfig;
}

export function createCatalogue({ database, config }: CatalogueServiceDeps): Catalogue {
  const db = database.db;
  // Lists and their counts can read thousands of rows: off the event loop where the engine allows (db/database.ts).
  const listDb = database.readDb;
  const ttl = config.catalogueCacheTtlMs;
  const basesIn: (storeCode: string) => BaseCache = boundedCaches(ttl, BASE_CACHE_ENTRIES_PER_STORE, 'catalogue.products');
  const readBases = baseReader(database);
  // Bases kept for a period keep their cards' texts too; with the caches off there is nothing to keep them with.
  const writeCard = ttl > 0 ? cardText : cardTextOnce;
  /** Bases of the given products in the store, by id; null for an id with no product. */
  const loadBases = (storeCode: string, ids: readonly number[]): Promise<Map<number, ProductBase | null>> =>
    basesIn(storeCode).getMany(ids, async (missing) => {
      const loaded = await readBases(storeCode, missing);
      return new Map(missing.map((id) => [id, loaded.get(id) ?? null]));
    });
  const listTtl = config.catalogueListCacheTtlMs;
  const lists: ProductListCaches = {
    counts: boundedCache(listTtl, LIST_CACHE_ENTRIES, 'catalogue.list-counts'),
    pages: boundedCache(listTtl, LIST_CACHE_ENTRIES, 'catalogue.list-pages'),
    levels: boundedCache(listTtl, LIST_CACHE_ENTRIES, 'catalogue.list-discount-levels'),
  };
  // The same counts as the product lists of the same filters: kept as long.
  const counts = boundedCache<string, number>(listTtl, COUNT_CACHE_ENTRIES, 'catalogue.counts');
  // Read by every list: kept while their version stands, so a cold list does not rebuild them (reference-cache.ts).
  const version = referenceVersions(database);
  const bindingNames = referenceCache(
    ttl,
    () => version('binding'),
    () => readBindingNames(db),
    'catalogue.bindings',
  );
  const bindings = (version?: number) => bindingNames.get(null, version);
  const trees = referenceCache(
    ttl,
    () => version('category'),
    async (key: string) => {
      const [storeCode, language] = key.split(':') as [string, Language];
      return buildCategoryTree(await categoryRows(db, storeCode, language));
    },
    'catalogue.category-trees',
  );

  // A campaign's store, switch and window, kept for the cache period: whether it runs is worked out per request.
  const campaigns = boundedCache<number, CampaignWindow | null>(ttl, CAMPAIGN_CACHE_ENTRIES, 'catalogue.campaign-windows');

  // The store's campaign windows, kept as long as a list's order: which run is worked out at each request's time.
  const storeCampaigns = boundedCache<string, Awaited<ReturnType<typeof readStoreCampaignWindows>>>(
    listTtl,
    STORE_CAMPAIGN_CACHE_ENTRIES,
    'catalogue.store-campaigns',
  );

  const listing = categoryListingReader(database);
  const storeListing = storeListingReader(database);
  let rebuilding: Promise<void> | undefined;
  /**
   * The store's kept list when there is no filter at all (GET /product as it is); the category's when the filter is
   * exactly a subtree as the tree gave it (what a category page lists): a stale one starts a rebuild (once per process
   * at a time) and the lists query meanwhile.
   */
  const keptList = ({ caller, store }: CatalogueContext, filter: ProductFilter): KeptList | undefined => {
    if (Object.values(filter).every((value) => value === undefined)) {
      const audience = audienceKey(caller);
      return {
        count: () => storeListing.count(store.code, audience),
        page: (offset, limit) => storeListing.page(store.code, audience, offset, limit),
      };
    }
    const ids = filter.categoryIds;
    if (ids === undefined || ids.length === 0 || !isSubtreeList(ids)) return undefined;
    if (Object.entries(filter).some(([key, value]) => key !== 'categoryIds' && value !== undefined)) return undefined;
    const categoryId = ids[0]!;
    const audience = audienceKey(caller);
    return {
      async count() {
        const total = await listing.count(categoryId, audience);
        if (total === undefined)
          rebuilding ??= rebuildCategoryListing(db)
            .catch(() => undefined)
            .finally(() => (rebuilding = undefined));
        return total;
      },
      page: (offset, limit) => listing.page(categoryId, audience, offset, limit),
    };
  };

  const priceContext = async ({ caller, store, now }: CatalogueContext, ids: readonly number[]): Promise<PriceContext> => ({
    caller,
    store,
    now,
    companyPrices: await companyPrices(db, caller, ids),
  });

  /** The bases of `ids` the caller may see, in order, and what pricing them takes. */
  const shownBases = async (context: CatalogueContext, ids: readonly number[]) => {
    const [found, prices, names] = await Promise.all([loadBases(context.store.code, ids), priceContext(context, ids), bindings()]);
    return { shown: visibleOf(found, ids, context.caller), prices, names };
  };

  const cards: Catalogue['cards'] = async (context, ids) => {
    const { shown, prices, names } = await shownBases(context, ids);
    return shown.map((base) => toCard(base, prices, context.language, names));
  };

  /** The cards as text, and when a price on them may change (pricesChangeAt) from the same bases. */
  const cardsTextUntil = async (context: CatalogueContext, ids: readonly number[]) => {
    const { shown, prices, names } = await shownBases(context, ids);
    return {
      text: jsonArrayBytes(shown.map((base) => writeCard(base, prices, context.language, names))),
      changesAt: campaignChangeAt(shown, context.now),
    };
  };

  const cardsText: Catalogue['cardsText'] = async (context, ids) => (await cardsTextUntil(context, ids)).text;

  /** What a list sorted by price orders by: the prices the cards show (bases and price context as `cards` reads them). */
  const least = leastFor(database.engine);
  const listPricing = (context: CatalogueContext): ListPricing => ({
    store: context.store,
    least,
    sqlFromOffset: config.catalogueListPriceSqlFromOffset,
    async runningCampaignIds() {
      const windows = await storeCampaigns.get(context.store.code, () => readStoreCampaignWindows(db, context.store.code));
      const { now } = context;
      return windows.filter((window) => campaignRunsAt(window, now)).map((window) => window.id);
    },
    async priceOf(ids) {
      const [found, prices] = await Promise.all([loadBases(context.store.code, ids), priceContext(context, ids)]);
      const priced = new Map<number, number>();
      for (const id of ids) {
        const base = found.get(id);
        if (base) priced.set(id, callerPrice(base, prices).priceCents);
      }
      return priced;
    },
  });

  const pageIds = (context: CatalogueContext, filter: ProductFilter, sort: ProductSort, slice: ListSlice) =>
    productPage(
      listDb,
      lists,
      {
        storeCode: context.store.code,
        caller: context.caller,
        filter,
        sort,
        offset: slice.offset,
        limit: slice.perPage,
        now: context.now,
      },
      keptList(context, filter),
      listPricing(context),
    );

  const base = async (storeCode: string, id: number) => (await loadBases(storeCode, [id])).get(id) ?? undefined;

  return {
    base,
    async visibleBase(context, id) {
      const found = await base(context.store.code, id);
      return found && isVisibleTo(found, context.caller) ? found : undefined;
    },
    cards,
    async visibleCardTexts(context, ids, slice) {
      const shown = visibleOf(await loadBases(context.store.code, ids), ids, context.caller);
      const page = shown.slice(slice.offset, slice.offset + slice.perPage);
      const [prices, names] = await Promise.all([
        priceContext(
          context,
          page.map((base) => base.id),
        ),
        bindings(),
      ]);
      const cards = page.map((base) => ({ id: base.id, text: writeCard(base, prices, context.language, names) }));
      return { total: shown.length, cards };
    },
    async visibleIdsNow(context, ids) {
      const found = await readBases(context.store.code, ids);
      return ids.filter((id) => {
        const base = found.get(id);
        return base !== undefined && isVisibleTo(base, context.caller);
      });
    },
    cardsText,
    cardsTextUntil,
    async listPage(context, filter, sort, slice) {
      const { ids, total } = await pageIds(context, filter, sort, slice);
      return { cards: await cards(context, ids), total };
    },
    async listPageText(context, filter, sort, slice) {
      const { ids, total } = await pageIds(context, filter, sort, slice);
      return { ...(await cardsTextUntil(context, ids)), total };
    },
    async pricesChangeAt(context, ids) {
      return campaignChangeAt((await loadBases(context.store.code, ids)).values(), context.now);
    },
    productCount: (context, filter) =>
      countVisibleProducts(
        listDb,
        counts,
        { storeCode: context.store.code, caller: context.caller, filter, now: context.now },
        keptList(context, filter),
      ),
    priceContext,
    categoryTree: (storeCode, language, version) => trees.get(`${storeCode}:${language}`, version),
    bindings,
    async campaignRuns({ store, now }, id) {
      const found = await campaigns.get(id, async () => (await readCampaignWindow(db, id)) ?? null);
      return found !== null && found.isActive && found.storeCode === store.code && campaignRunsAt(found, now);
    },
    async seesProductCode(storeCode, code, businessCatalogue) {
      const id = await findProductIdByCode(db, code);
      const found = id === undefined ? undefined : await base(storeCode, id);
      return found !== undefined && isVisibleTo(found, businessCatalogue ? BUSINESS_AUDIENCE : GUEST);
    },
  };
}

/** The bases of `ids` the caller may see, in the order of `ids`. */
function visibleOf(found: Map<number, ProductBase | null>, ids: readonly number[], caller: Caller): ProductBase[] {
  const shown: ProductBase[] = [];
  for (const id of ids) {
    const base = found.get(id);
    if (base && isVisibleTo(base, caller)) shown.push(base);
  }
  return shown;
}

/** A caller who sees the business catalogue, for visibility only (the rule reads nothing but the kind). */
const BUSINESS_AUDIENCE: Caller = { ...GUEST, kind: 'BUSINESS' };

/** A campaign id no campaign has (ids start at 1): the filter of a campaign that does not run now, which lists nothing. */
const NO_CAMPAIGN = 0;

/**
 * The filters a product list and a search share, from their query: a category means its subtree; a
 * campaign that is not running at the context's time lists nothing, under a filter (and so cache keys)
 * of its own: a list kept while it ran is not served after it ends.
 */
export async function browseFilter(
  catalogue: Catalogue,
  { store, language, now }: Pick<CatalogueContext, 'store' | 'language' | 'now'>,
  query: { categoryId?: number; personId?: number; publisherId?: number; seriesId?: number; productListId?: number; campaignId?: number },
): Promise<ProductFilter> {
  const categoryIds =
    query.categoryId === undefined ? undefined : (await catalogue.categoryTree(store.code, language)).subtreeIds(query.categoryId);
  return {
    categoryIds,
    personId: query.personId,
    publisherId: query.publisherId,
    seriesId: query.seriesId,
    productListId: query.productListId,
    campaignId:
      query.campaignId === undefined
        ? undefined
        : (await catalogue.campaignRuns({ store, now }, query.campaignId))
          ? query.campaignId
          : NO_CAMPAIGN,
  };
}
