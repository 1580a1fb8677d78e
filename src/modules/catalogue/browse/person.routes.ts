import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { boundedCache } from '../../../infra/bounded-cache.js';
import type { PersonRole } from '../catalogue.tables.js';
import { audienceKey } from '../visibility.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { NameListQuery } from './browse.schemas.js';
import { IdParams } from '../catalogue.schemas.js';
import { cachedEntity, entityRoute, nameIndexRoute, productsRoute } from '../lists.routes.js';
import { authorPage, countAuthors, findPerson, personRoles } from './person.repository.js';
import { PersonDetailsSchema, PersonListItemSchema, PersonProductsQuery } from './person.schemas.js';

const CACHE_ENTRIES = 20_000;

/** Authors (the index of persons with books in the store) and persons with their products. */
export const personRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { database, config } = deps;
  const db = database.db;
  const personOf = cachedEntity(config.catalogueCacheTtlMs, 'catalogue.personNotFound', (id) => findPerson(db, id));
  const roles = boundedCache<string, PersonRole[]>(config.catalogueCacheTtlMs, CACHE_ENTRIES);

  nameIndexRoute(app, deps, {
    url: '/author',
    tags: ['authors'],
    summary: 'Authors of products in the store, by name; q filters by name prefix, letter by first letter',
    querystring: NameListQuery,
    item: PersonListItemSchema,
    count: (filter) => countAuthors(db, filter),
    page: (filter, offset, limit) => authorPage(db, filter, offset, limit),
  });

  entityRoute(app, deps, {
    url: '/person/:id',
    tags: ['product persons'],
    summary: 'A person with their roles and the number of their products in the store',
    item: PersonDetailsSchema,
    entityOf: personOf,
    products: (person) => ({ personId: person.id }),
    more: async ({ store, caller }, person) => ({
      roles: await roles.get(`${store.code}|${audienceKey(caller)}|${person.id}`, () => personRoles(db, person.id, store.code, caller)),
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
