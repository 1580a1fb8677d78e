import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams } from '../catalogue.schemas.js';
import { entityRoute, nameIndexRoute, productsRoute } from '../lists.routes.js';
import { createEntityReader, createNameIndex } from './name-index.service.js';
import { authorPage, countAuthors, findPerson } from './person.repository.js';
import { createPersonRoles } from './person.service.js';
import { AuthorListQuery, PersonDetailsSchema, PersonListItemSchema, PersonProductsQuery } from './person.schemas.js';

/** Authors (the index of persons with books in the store) and persons with their products. */
export const personRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { database, config } = deps;
  const db = database.db;
  const personOf = createEntityReader(config.catalogueCacheTtlMs, 'catalogue.personNotFound', (id) => findPerson(db, id));
  const roles = createPersonRoles(db, config.catalogueCacheTtlMs);
  const authors = createNameIndex(config.catalogueListCacheTtlMs, {
    count: (filter) => countAuthors(db, filter),
    page: (filter, offset, limit) => authorPage(db, filter, offset, limit),
  });

  nameIndexRoute(app, deps, {
    url: '/author',
    tags: ['authors'],
    summary:
      "Authors of products in the store, by surname (sortName); q filters by the start of the name or the sort name, letter by the sort name's first letter",
    querystring: AuthorListQuery,
    item: PersonListItemSchema,
    read: authors,
  });

  entityRoute(app, deps, {
    url: '/person/:id',
    tags: ['product persons'],
    summary: 'A person with their roles and the number of their products in the store',
    item: PersonDetailsSchema,
    entityOf: personOf,
    products: (person) => ({ personId: person.id }),
    more: async ({ store, caller }, person) => ({
      roles: await roles({ storeCode: store.code, caller }, person.id),
    }),
  });

  productsRoute(app, deps, {
    url: '/person/:id/products',
    tags: ['product persons'],
    summary: 'Products of the person, in any role or in the one given, priced for the caller',
    params: IdParams,
    querystring: PersonProductsQuery,
    defaultSort: 'newest',
    filter: async ({ params, query }) => ({ personId: (await personOf(params.id)).id, personRole: query.role }),
  });
};
