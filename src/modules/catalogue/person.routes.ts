import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestStore } from '../../http/request-context.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import type { PersonRole } from '../../db/schema.js';
import { audienceKey } from './visibility.js';
import type { BrowseDeps } from './browse.routes.js';
import { NameListQuery } from './browse.schemas.js';
import { IdParams } from './catalogue.schemas.js';
import { cachedEntity, entityRoute, nameIndexRoute, productsRoute } from './list-routes.js';
import { authorPage, countAuthors, findPerson, personRoles } from './person.repository.js';
import { PersonDetailsSchema, PersonListItemSchema, PersonProductsQuery } from './person.schemas.js';

const CACHE_ENTRIES = 20_000;

/** Authors (the index of persons with books in the store) and persons with their products. */
export const personRoutes: FastifyPluginAsyncTypebox<BrowseDeps> = async (app, deps) => {
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
    more: async (request, caller, person) => {
      const storeCode = requestStore(request).code;
      return { roles: await roles.get(`${storeCode}|${audienceKey(caller)}|${person.id}`, () => personRoles(db, person.id, storeCode, caller)) };
    },
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
