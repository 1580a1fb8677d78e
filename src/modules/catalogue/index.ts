// The catalogue's public surface: other modules (search, the catalogue import, the demo data) and
// the composition roots import the catalogue only from here.

// Routes, and what app.ts gives them.
export { catalogueRoutes, GUEST_ANSWERS } from './catalogue.routes.js';
export type { CatalogueDeps } from './catalogue.deps.js';
export { readCatalogueConfig, type CatalogueConfig } from './catalogue.config.js';

// The shared reading side: cached bases, cards, list pages, category trees, binding names.
export {
  browseFilter,
  createCatalogue,
  type Catalogue,
  type CatalogueContext,
  type CatalogueStore,
  type ListSlice,
} from './catalogue.service.js';
export type { CategoryNode, CategoryTree } from './browse/category-tree.js';
export { categoryListingIsStale, categoryTotalsBacklog, rebuildCategoryListing } from './browse/category-listing.repository.js';
export { scheduleCategoryTotalsFold } from './browse/category-listing.jobs.js';
export { countStoreListing } from './browse/store-listing.repository.js';
export { beginBulkWrite, DOCUMENT_CHILD_TABLES, endBulkWrite, refreshProductDocuments } from './products/bulk-write.js';
// The versions of reference data, bumped by triggers (the basket keeps its products under 'price').
export { referenceVersions } from './reference-cache.js';
export type { BindingNames } from './products/binding-names.repository.js';
export type { ProductBase, ProductCard } from './products/product-card.types.js';
export type { ProductSort } from './product-query.js';
export { productFilterConditions, type ProductFilter } from './product-filter.js';

// The HTTP side of a catalogue read (for route files): the caller, the context, the cache headers.
export {
  cacheAudienceOf,
  cacheFor,
  cacheUntil,
  callerResolver,
  catalogueContext,
  type CallerResolver,
} from './catalogue-request.routes.js';

// Who reads, and what they may see.
export { GUEST, pricingCustomer, seesBusinessCatalogue, type Caller } from './caller.js';
export { clientAccountCaller } from './account-caller.js';
export { audienceKey, isVisibleTo, visibleProduct, visibleSearchProduct, type ContainsSql, type VisibilityFacts } from './visibility.js';

// Wire shapes other modules answer with.
export { literals, ProductCardSchema, ProductTypeSchema } from './catalogue.schemas.js';

// Which of a client's bought products they could rate and have not (the orders' feedback request asks about them).
export { unratedVisibleAmong } from './reviews/comment.repository.js';
// The shops (the contact page lists them).
export { activeShops, type ShopRow } from './shops/shop.repository.js';
export { ShopSchema } from './shops/shop.schemas.js';

// The values a product row derives from other tables, for every writer of products.
export { discountPercent } from './denormalised.js';
export { refreshImageUrl, refreshRating, refreshWebStock } from './denormalised.repository.js';
// The value a person row derives from its name, for every writer of persons.
export { isFiledUnderALetter, personSortName } from './person-sort-name.js';

// Its tables (composed into Database by src/schema.ts) and the column types other modules share.
export type * from './catalogue.tables.js';
export { catalogueMessages } from './catalogue.messages.js';
export { cataloguePersonalData } from './catalogue.personal-data.js';
