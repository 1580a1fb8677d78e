import type { DatabaseHandle } from '../../../db/database.js';
import { toRfc3339 } from '../../../db/time.js';
import type { AssetKind } from '../catalogue.tables.js';
import { notFound } from '../../../infra/domain-error.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import type { CatalogueConfig } from '../catalogue.config.js';
import type { Catalogue, CatalogueContext } from '../catalogue.service.js';
import { priceFields, toCard } from './product-card.mapper.js';
import { campaignChangeAt } from './product-card.text.js';
import type { ProductBase, ProductCard } from './product-card.types.js';
import { productExtrasReader, toExtras, type ProductExtras } from './product-details.repository.js';
import { productPageReader } from './product-document.repository.js';
import { isVisibleTo } from '../visibility.js';
import { activeCampaignOf, ebookEditions, findProductIdByCode, productAssets, relatedProductIds } from './product.repository.js';

const EXTRAS_CACHE_ENTRIES = 20_000;
const PAGE_CACHE_ENTRIES = 20_000;

export type ProductDetails = ProductCard & ProductExtras;

export interface ProductPrices {
  price: number;
  strikeThroughPrice: number | null;
  discountPercent: number;
  vatIncluded: boolean;
  vatRatePercent: number;
  currency: string;
  /** The campaign whose price the caller gets, if any. */
  campaign: { code: string; name: string; validTo: string | null } | null;
}

export interface ProductAsset {
  kind: AssetKind;
  url: string;
  mimeType: string | null;
  width: number | null;
  height: number | null;
}

/** What the product page and its parts read; every answer is for the caller, 404 when they may not see the product. */
export interface ProductPages {
  /** The product if the caller may see it in this store; a not-found error otherwise (hidden is the same as absent). */
  visibleBase(context: CatalogueContext, id: number): Promise<ProductBase>;
  /** The product id of a back-office code; a not-found error when there is none. */
  idOfCode(code: string): Promise<number>;
  /** The page, and the first instant after the context's time its price may change (a campaign price starts or ends; Infinity: none). */
  details(context: CatalogueContext, id: number): Promise<{ body: ProductDetails; changesAt: number }>;
  /** The prices, and when they may change (as details). */
  prices(context: CatalogueContext, id: number): Promise<{ body: ProductPrices; changesAt: number }>;
  /** The parts of the product page that are the same for every caller of the store and language. */
  extras(context: CatalogueContext, id: number): Promise<ProductExtras | undefined>;
  assets(context: CatalogueContext, id: number): Promise<ProductAsset[]>;
  /** The related products the caller may see, in the back office's order. */
  related(context: CatalogueContext, id: number): Promise<ProductCard[]>;
}

export interface ProductPagesDeps {
  database: DatabaseHandle;
  config: CatalogueConfig;
  catalogue: Catalogue;
}

export function createProductPages({ database, config, catalogue }: ProductPagesDeps): ProductPages {
  const db = database.db;
  const extrasCache = boundedCache<string, ProductExtras | undefined>(config.catalogueCacheTtlMs, EXTRAS_CACHE_ENTRIES);
  const readExtras = productExtrasReader(database);
  const readPage = productPageReader(database);
  // What a product page shows, the same for every caller of a store and language: the base and the extras.
  const pageCache = boundedCache<string, { base: ProductBase; extras: ProductExtras } | null>(
    config.catalogueCacheTtlMs,
    PAGE_CACHE_ENTRIES,
    'catalogue.product-pages',
  );

  /**
   * The page from the product's document (one read); null when the product has no document. With it
   * the binding version its statement read, when it was read for this call (not kept from another).
   */
  async function page({ store, language }: CatalogueContext, id: number) {
    let bindingVersion: number | undefined;
    const entry = await pageCache.get(`${store.code}:${language}:${id}`, async () => {
      const found = await readPage(store.code, id, language);
      if (!found) return null;
      bindingVersion = found.versions.binding;
      const tree = await catalogue.categoryTree(store.code, language, found.versions.category);
      return { base: found.base, extras: toExtras(found.extrasRow, found.parts, tree) };
    });
    return { entry, bindingVersion };
  }

  /** The details by the product's own queries: for a product the document misses (none is left without one by the triggers). */
  async function detailsByQueries(context: CatalogueContext, id: number): Promise<{ body: ProductDetails; changesAt: number }> {
    const base = await visibleBase(context, id);
    const [found, prices] = await Promise.all([extras(context, id), catalogue.priceContext(context, [id])]);
    if (!found) throw notFound('catalogue.productNotFound', { id });
    const [physicalBook, ebook] = await Promise.all([visibleRef(context, found.physicalBook), visibleEbook(context, id, found.ebook)]);
    const card = toCard(base, prices, context.language, await catalogue.bindings());
    return { body: withExtras(card, found, physicalBook, ebook), changesAt: campaignChangeAt([base], context.now) };
  }

  async function visibleBase(context: CatalogueContext, id: number): Promise<ProductBase> {
    const base = await catalogue.visibleBase(context, id);
    if (!base) throw notFound('catalogue.productNotFound', { id });
    return base;
  }

  function extras({ store, language }: CatalogueContext, id: number): Promise<ProductExtras | undefined> {
    return extrasCache.get(`${store.code}:${language}:${id}`, async () =>
      readExtras(id, await catalogue.categoryTree(store.code, language), language),
    );
  }

  /** The other edition if the caller may see it: it is cached with the page for every caller, whether this caller may see it is not. */
  async function visibleRef<T extends { id: number }>(context: CatalogueContext, ref: T | null): Promise<T | null> {
    if (ref === null) return null;
    const base = await catalogue.base(context.store.code, ref.id);
    return base && isVisibleTo(base, context.caller) ? ref : null;
  }

  /**
   * The e-book edition of a physical book the caller may see. The page keeps one, the first active one, for every
   * caller; where a book has several (one per store, one hidden from the public) and that one is not the caller's,
   * the others are looked at, in the same order.
   */
  async function visibleEbook(context: CatalogueContext, id: number, first: ProductExtras['ebook']): Promise<ProductExtras['ebook']> {
    const shown = await visibleRef(context, first);
    if (shown !== null || first === null) return shown;
    for (const other of await ebookEditions(db, id)) {
      if (other.id !== first.id && (await visibleRef(context, other)) !== null) return other;
    }
    return null;
  }

  return {
    visibleBase,
    async idOfCode(code) {
      const id = await findProductIdByCode(db, code);
      if (id === undefined) throw notFound('catalogue.productNotFound', { id: code.slice(0, 40) });
      return id;
    },
    async details(context, id) {
      const { entry, bindingVersion } = await page(context, id);
      if (!entry) return detailsByQueries(context, id);
      const { base, extras: shown } = entry;
      if (!isVisibleTo(base, context.caller)) throw notFound('catalogue.productNotFound', { id });
      const [prices, bindings, physicalBook, ebook] = await Promise.all([
        catalogue.priceContext(context, [id]),
        catalogue.bindings(bindingVersion),
        visibleRef(context, shown.physicalBook),
        visibleEbook(context, id, shown.ebook),
      ]);
      return {
        body: withExtras(toCard(base, prices, context.language, bindings), shown, physicalBook, ebook),
        changesAt: campaignChangeAt([base], context.now),
      };
    },
    async prices(context, id) {
      const base = await visibleBase(context, id);
      const fields = priceFields(base, await catalogue.priceContext(context, [base.id]));
      const campaign =
        fields.source === 'campaign'
          ? await activeCampaignOf(db, base.id, context.caller, context.store.code, context.now, context.language)
          : null;
      const { source: _source, ...wire } = fields;
      const body = {
        ...wire,
        vatRatePercent: base.pricing.vatRatePercent,
        currency: context.store.currency,
        campaign: campaign && { ...campaign, validTo: campaign.validTo === null ? null : toRfc3339(campaign.validTo) },
      };
      return { body, changesAt: campaignChangeAt([base], context.now) };
    },
    extras,
    async assets(context, id) {
      await visibleBase(context, id);
      return productAssets(db, id);
    },
    async related(context, id) {
      await visibleBase(context, id);
      return catalogue.cards(context, await relatedProductIds(db, id));
    },
  };
}

/**
 * The card with the page's extras and the editions the caller may see, built on the card (a new
 * object of its own). Not `{ ...card, ...extras, physicalBook, ebook }`: V8 (Node 20) builds that
 * literal of two spreads and 34 keys on a slow path, ~40 µs a call against under 1 µs for
 * Object.assign, which was 7-9 % of a cold product page.
 */
function withExtras(
  card: ProductCard,
  extras: ProductExtras,
  physicalBook: ProductExtras['physicalBook'],
  ebook: ProductExtras['ebook'],
): ProductDetails {
  return Object.assign(card, extras, { physicalBook, ebook });
}
