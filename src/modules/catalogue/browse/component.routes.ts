import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../../http/errors.js';
import { pageRequest, setPaginationHeaders } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { sendJsonText } from '../../../http/serialization.js';
import { cacheUntil, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { ProductCardSchema } from '../catalogue.schemas.js';
import type { Catalogue, CatalogueContext } from '../catalogue.service.js';
import type { ProductFilter, ProductSort } from '../product-query.js';
import { COMPONENT_PAGING, ComponentQuery, NEWEST_DAYS } from './component.schemas.js';

const DAY_MS = 86_400_000;

interface Component {
  path: string;
  summary: string;
  sort: ProductSort;
  filter(now: number): ProductFilter;
}

const COMPONENTS: Component[] = [
  {
    path: '/product-component/discounted',
    summary:
      'Products whose cards show the caller a discount, the largest first (business and wholesale customers: those sold below their list price)',
    sort: 'discount',
    filter: () => ({ discounted: true }),
  },
  {
    path: '/product-component/newest',
    summary: `Products released in the last ${NEWEST_DAYS} days (not future releases), the newest first`,
    sort: 'newest',
    // From the start of the UTC day: the filter, and so the cached page and count, stay the same all day.
    filter: (now) => ({ releasedSince: Math.floor(now / DAY_MS) * DAY_MS - NEWEST_DAYS * DAY_MS }),
  },
  {
    path: '/product-component/top',
    summary: 'Products that sold, the best-selling first',
    sort: 'sales',
    filter: () => ({ minSales: 1 }),
  },
];

/** The block's narrowing by category (with its subcategories) and type; an unknown category is a 404. */
async function scope(catalogue: Catalogue, { store, language }: CatalogueContext, query: ComponentQuery): Promise<ProductFilter> {
  const filter: ProductFilter = {};
  if (query.categoryId !== undefined) {
    const tree = await catalogue.categoryTree(store.code, language);
    // An unknown category is a stale link, not an empty block: say so.
    if (!tree.byId.has(query.categoryId)) throw new HttpError(404, 'catalogue.categoryNotFound', { id: query.categoryId });
    filter.categoryIds = tree.subtreeIds(query.categoryId);
  }
  if (query.type !== undefined) filter.types = [query.type];
  return filter;
}

/** The main page's product blocks: discounted, newest and top sellers, optionally within a category and type. */
export const componentRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, { catalogue, caller: callerOf }) => {
  for (const component of COMPONENTS) {
    app.get(
      component.path,
      {
        schema: {
          tags: ['product components'],
          summary: component.summary,
          headers: StoreRequestHeaders,
          querystring: ComponentQuery,
          response: { 200: success(Type.Array(ProductCardSchema), 'list'), ...errors(...storeRouteErrors, 401, 404) },
        },
      },
      async (request, reply) => {
        const caller = await callerOf(request);
        const context = catalogueContext(request, caller);
        const filter = { ...component.filter(context.now), ...(await scope(catalogue, context, request.query)) };
        const page = pageRequest(request.query, COMPONENT_PAGING);
        const { text, total, changesAt } = await catalogue.listPageText(context, filter, component.sort, page);
        cacheUntil(reply, context, changesAt);
        setPaginationHeaders(request, reply, page, total);
        return sendJsonText(reply, text);
      },
    );
  }
};
