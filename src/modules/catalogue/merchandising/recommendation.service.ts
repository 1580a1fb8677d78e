import type { DatabaseHandle } from '../../../db/database.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import { notFound } from '../../../infra/domain-error.js';
import type { CatalogueConfig } from '../catalogue.config.js';
import type { Catalogue, CatalogueContext } from '../catalogue.service.js';
import type { ProductCard } from '../products/product-card.types.js';
import { audienceKey } from '../visibility.js';
import { MAX_RECOMMENDATIONS, productCategoryIds, recommendedIds } from './recommendation.repository.js';

const CACHE_ENTRIES = 20_000;
export const DEFAULT_RECOMMENDATIONS = 12;

/** Up to `limit` products to recommend beside one the caller may see (not found otherwise), best first. */
export type Recommend = (context: CatalogueContext, productId: number, limit: number | undefined) => Promise<ProductCard[]>;

export interface RecommendationDeps {
  database: DatabaseHandle;
  config: CatalogueConfig;
  catalogue: Catalogue;
}

/**
 * Recommendations beside a product: bought together with it, then related, same author, same
 * category (see recommendation.repository.ts). The ids are kept per store and audience for the
 * cache period; the cards are priced per caller.
 */
export function createRecommendations({ database, config, catalogue }: RecommendationDeps): Recommend {
  const db = database.db;
  const cache = boundedCache<string, number[]>(config.catalogueCacheTtlMs, CACHE_ENTRIES);
  return async (context, productId, limit) => {
    const { caller } = context;
    const store = context.store.code;
    const base = await catalogue.visibleBase(context, productId);
    if (!base) throw notFound('catalogue.productNotFound', { id: productId });
    const ids = await cache.get(`${store}|${audienceKey(caller)}|${productId}`, async () => {
      const tree = await catalogue.categoryTree(store, context.language);
      const shown = (await productCategoryIds(db, productId)).map((id) => tree.byId.get(id)).filter((node) => node !== undefined);
      // The most specific categories only: a root category's best sellers say little about this book.
      const deepest = Math.max(0, ...shown.map((node) => node.level));
      const categoryIds = shown.filter((node) => node.level === deepest).map((node) => node.id);
      return recommendedIds(db, { productId, productCode: base.code, storeCode: store, caller, categoryIds });
    });
    return catalogue.cards(context, ids.slice(0, Math.min(limit ?? DEFAULT_RECOMMENDATIONS, MAX_RECOMMENDATIONS)));
  };
}
