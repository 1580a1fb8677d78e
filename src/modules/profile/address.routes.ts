import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { pageOfList } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { createAddress, listAddresses, MAX_ADDRESSES, removeAddress, replaceAddress } from './address.service.js';
import { profileAuth } from './profile.plugin.js';
import type { ProfileDeps } from './profile.deps.js';
import { AddressBody, AddressParams, AddressSchema, ProfileListQuery } from './profile.schemas.js';

/** The client's saved shipping and billing addresses; another client's id is a 404. */
export const addressRoutes: FastifyPluginAsyncTypebox<ProfileDeps> = async (app, deps) => {
  const db = deps.database.db;
  const { requireActor, actorOf } = profileAuth(app, db);
  const tags = ['client account'];
  const security = [{ bearer: [] }];
  const writeErrors = errors(...storeRouteErrors, 401, 413, 415, 422);

  app.get(
    '/client-account/address',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: `Saved addresses, shipping first (paged; at most ${MAX_ADDRESSES})`,
        headers: StoreRequestHeaders,
        querystring: ProfileListQuery,
        security,
        response: { 200: success(Type.Array(AddressSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    // Paged as every list is (page, per-page, X-Pagination-*); at most MAX_ADDRESSES, so read whole and sliced.
    async (request, reply) => pageOfList(request, reply, request.query, await listAddresses(db, actorOf(request).clientAccountId)),
  );

  app.post(
    '/client-account/address',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: `Saves an address (at most ${MAX_ADDRESSES}); isDefault makes it the default of its kind`,
        description:
          'The same address posted again within 5 minutes (a double click, a retry after a timeout) answers the address the ' +
          'first one saved, 201 as before, and saves nothing.',
        headers: StoreRequestHeaders,
        body: AddressBody,
        security,
        response: { 201: success(AddressSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      const address = await db.transaction().execute((trx) => createAddress(trx, actorOf(request), request.body, request.actionTime));
      return reply.code(201).send(address);
    },
  );

  app.put(
    '/client-account/address/:id',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Replaces an address; isDefault left out keeps it the default it was',
        headers: StoreRequestHeaders,
        params: AddressParams,
        body: AddressBody,
        security,
        response: { 200: success(AddressSchema), ...writeErrors, ...errors(404) },
      },
    },
    async (request) =>
      db.transaction().execute((trx) => replaceAddress(trx, actorOf(request), request.params.id, request.body, request.actionTime)),
  );

  app.delete(
    '/client-account/address/:id',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Deletes an address',
        headers: StoreRequestHeaders,
        params: AddressParams,
        security,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      await db.transaction().execute((trx) => removeAddress(trx, actorOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
};
