import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../http/errors.js';
import { pageRequest } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { CatalogueDeps } from './catalogue.routes.js';
import { ProductCardSchema } from './catalogue.schemas.js';
import { COMPONENT_PAGING, ComponentQuery, NEWEST_DAYS } from './component.schemas.js';
import type { ProductFilter, ProductSort } from './product-query.js';

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
    summary: 'Products sold below their list price, the largest discount first',
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

/** The main page's product blocks: discounted, newest and top sellers, optionally within a category and type. */
export const componentRoutes: FastifyPluginAsyncTypebox<CatalogueDeps> = async (app, { catalogue }) => {
  async function scope(request: FastifyRequest, query: ComponentQuery): Promise<ProductFilter> {
    const filter: ProductFilter = {};
    if (query.categoryId !== undefined) {
      const tree = await catalogue.categoryTree(requestStore(request).code, request.language);
      // An unknown category is a stale link, not an empty block: say so.
      if (!tree.byId.has(query.categoryId)) throw new HttpError(404, 'catalogue.categoryNotFound', { id: query.categoryId });
      filter.categoryIds = tree.subtreeIds(query.categoryId);
    }
    if (query.type !== undefined) filter.types = [query.type];
    return filter;
  }

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
        const caller = await catalogue.caller(request);
        const filter = { ...component.filter(request.actionTime), ...(await scope(request, request.query)) };
        catalogue.cacheFor(reply, caller);
        return catalogue.listPage(request, reply, caller, filter, component.sort, pageRequest(request.query, COMPONENT_PAGING));
      },
    );
  }
};
