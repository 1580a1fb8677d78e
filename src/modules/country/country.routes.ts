import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { PagingQuery, sendPageOfKeptList } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { ttlCache } from '../../infra/ttl-cache.js';
import { allCountries } from './country.repository.js';

const CountrySchema = Type.Object({
  code: Type.String({ description: 'ISO 3166-1 alpha-2 code' }),
  name: Type.String({ description: 'Name in the language of the answer' }),
});

export interface CountryDeps {
  database: DatabaseHandle;
  /** Countries are kept as long as the store settings (STORE_CACHE_TTL_MS). */
  config: { storeCacheTtlMs: number };
}

/** Countries for address forms: the EU and its neighbours, names translated. */
export const countryRoutes: FastifyPluginAsyncTypebox<CountryDeps> = async (app, { database, config }) => {
  // Reference data read on every address form: kept per language like the store settings.
  const countries = ttlCache(config.storeCacheTtlMs, (language: string) => allCountries(database.db, language));

  app.get(
    '/country',
    {
      schema: {
        tags: ['countries'],
        summary: 'Countries, paged, with names in the language of the request',
        headers: StoreRequestHeaders,
        querystring: PagingQuery,
        response: { 200: success(Type.Array(CountrySchema), 'list'), ...errors(...storeRouteErrors) },
      },
    },
    async (request, reply) => {
      return sendPageOfKeptList(request, reply, request.query, await countries.get(request.language));
    },
  );
};
