import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams } from '../catalogue.schemas.js';
import { entityRoute, nameIndexRoute, productsRoute } from '../lists.routes.js';
import { createEntityReader, createNameIndex } from './name-index.service.js';
import { countSeries, findSeries, seriesPage, type SeriesListItem } from './series.repository.js';
import { SeriesDetailsSchema, SeriesListItemSchema, SeriesListQuery, SeriesProductsQuery } from './series.schemas.js';

/** Series with products in the store, one series with its publisher, and its volumes in order. */
export const seriesRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { database, config } = deps;
  const db = database.db;
  const seriesOf = createEntityReader(config.catalogueCacheTtlMs, 'catalogue.seriesNotFound', (id) => findSeries(db, id));
  const seriesIndex = createNameIndex<{ publisherId: number | undefined }, SeriesListItem>(config.catalogueListCacheTtlMs, {
    count: (filter) => countSeries(db, filter),
    page: (filter, offset, limit) => seriesPage(db, filter, offset, limit),
  });

  nameIndexRoute(app, deps, {
    url: '/series',
    tags: ['product series'],
    summary: 'Series with products in the store, by name; q filters by name prefix, letter by first letter, publisherId by publisher',
    querystring: SeriesListQuery,
    item: SeriesListItemSchema,
    narrow: (query) => ({ publisherId: query.publisherId }),
    read: seriesIndex,
  });

  entityRoute(app, deps, {
    url: '/series/:id',
    tags: ['product series'],
    summary: 'A series with its publisher and the number of its products in the store',
    item: SeriesDetailsSchema,
    entityOf: seriesOf,
    products: (series) => ({ seriesId: series.id }),
  });

  productsRoute(app, deps, {
    url: '/series/:id/products',
    tags: ['product series'],
    summary: 'Products of the series, by number in the series unless sorted otherwise, priced for the caller',
    params: IdParams,
    querystring: SeriesProductsQuery,
    defaultSort: 'seriesNumber',
    filter: async ({ params }) => ({ seriesId: (await seriesOf(params.id)).id }),
  });
};
