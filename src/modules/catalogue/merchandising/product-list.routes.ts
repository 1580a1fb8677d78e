import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { findProductList, listProductLists, productListCounts, type ProductListRow } from './product-list.repository.js';
import { ProductListCodeParams, ProductListSchema } from './product-list.schemas.js';
import { storeListRoutes } from './store-lists.routes.js';

/** Curated product lists (main-page blocks, staff picks): the store's lists, one list by id or code, its products. */
export const productListRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const db = deps.database.db;

  storeListRoutes(app, deps, {
    path: '/product-list',
    tags: ['product lists'],
    item: ProductListSchema,
    codeParams: ProductListCodeParams,
    notFound: 'catalogue.productListNotFound',
    summaries: {
      list: 'Active product lists of the store, in display order',
      one: 'One product list of the store',
      byCode: 'One product list of the store by its code',
      products: "Products of a list, priced for the caller; default order: the list's",
      productsByCode: 'Products of a list named by its code (one request for a main-page block)',
    },
    page: ({ store, language }, offset, limit) => listProductLists(db, store.code, language, offset, limit),
    find: ({ store, language }, by) => findProductList(db, store.code, language, by),
    productCounts: ({ store, caller }, ids) => productListCounts(db, store.code, caller, ids),
    toWire: (row: ProductListRow, productCount): Static<typeof ProductListSchema> => ({ ...row, productCount }),
    products: (id) => ({ productListId: id }),
  });
};
