import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { NameListQuery } from './browse.schemas.js';
import { IdParams, SortedPagingQuery } from '../catalogue.schemas.js';
import { entityRoute, nameIndexRoute, productsRoute } from '../lists.routes.js';
import { createEntityReader, createNameIndex } from './name-index.service.js';
import { countPublishers, findPublisher, publisherPage } from './publisher.repository.js';
import { PublisherDetailsSchema, PublisherListItemSchema } from './publisher.schemas.js';

/** Publishers with products in the store, one publisher, and its products. */
export const publisherRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { database, config } = deps;
  const db = database.db;
  const publisherOf = createEntityReader(config.catalogueCacheTtlMs, 'catalogue.publisherNotFound', (id) => findPublisher(db, id));
  const publishers = createNameIndex(config.catalogueListCacheTtlMs, {
    count: (filter) => countPublishers(db, filter),
    page: (filter, offset, limit) => publisherPage(db, filter, offset, limit),
  });

  nameIndexRoute(app, deps, {
    url: '/publisher',
    tags: ['publishers'],
    summary: 'Publishers of products in the store, by name; q filters by name prefix, letter by first letter',
    querystring: NameListQuery,
    item: PublisherListItemSchema,
    read: publishers,
  });

  entityRoute(app, deps, {
    url: '/publisher/:id',
    tags: ['publishers'],
    summary: 'A publisher and the number of its products in the store',
    item: PublisherDetailsSchema,
    entityOf: publisherOf,
    products: (publisher) => ({ publisherId: publisher.id }),
  });

  productsRoute(app, deps, {
    url: '/publisher/:id/products',
    tags: ['publishers'],
    summary: 'Products of the publisher, priced for the caller',
    params: IdParams,
    querystring: SortedPagingQuery,
    defaultSort: 'newest',
    filter: async ({ params }) => ({ publisherId: (await publisherOf(params.id)).id }),
  });
};
