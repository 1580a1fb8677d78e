import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../app.js';
import { PagingQuery, pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { countCountries, listCountries } from './country.repository.js';

const CountrySchema = Type.Object({
  code: Type.String({ description: 'ISO 3166-1 alpha-2 code' }),
  name: Type.String({ description: 'Name in the language of the answer' }),
});

/** Countries for address forms: the EU and its neighbours, names translated. */
export const countryRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database }) => {
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
      const page = pageRequest(request.query);
      const [total, items] = await Promise.all([
        countCountries(database.db),
        listCountries(database.db, request.language, page),
      ]);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );
};
