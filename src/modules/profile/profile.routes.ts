import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { MAIN_API_PAGING, pageOfList } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { addressRoutes } from './address.routes.js';
import { identityRoutes } from './identity.routes.js';
import type { ProfileDeps } from './profile.deps.js';
import { profileAuth } from './profile.plugin.js';
import {
  CategoryPreferenceSchema,
  CategoryPreferenceUpdate,
  ClientAccountProfile,
  ClientAccountUpdate,
  MAX_FOLLOWED_CATEGORIES,
  PreferencesSchema,
  PreferencesUpdate,
  ProfileListQuery,
} from './profile.schemas.js';
import {
  readCategoryPreferences,
  readPreferences,
  readProfile,
  replaceCategoryPreferences,
  updatePreferences,
  updateProfile,
} from './profile.service.js';

const security = [{ bearer: [] }];
const readErrors = errors(...storeRouteErrors, 401);
const writeErrors = errors(...storeRouteErrors, 401, 413, 415, 422);

/**
 * The logged-in customer's own data: profile, login identity (identity.routes.ts), addresses
 * (address.routes.ts), notification preferences and followed categories. Bearer token required.
 */
export const profileRoutes: FastifyPluginAsyncTypebox<ProfileDeps> = async (app, deps) => {
  const db = deps.database.db;
  const { requireActor, actorOf } = profileAuth(app, db);
  const tags = ['client account'];

  app.get(
    '/client-account',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: "The caller's profile: names, phone, gender, birthday, language, marketing consents with their times",
        headers: StoreRequestHeaders,
        security,
        response: { 200: success(ClientAccountProfile), ...readErrors },
      },
    },
    async (request) => readProfile(db, actorOf(request)),
  );

  app.put(
    '/client-account',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Changes the given profile fields; a consent given or withdrawn is recorded with the time',
        headers: StoreRequestHeaders,
        body: ClientAccountUpdate,
        security,
        response: { 200: success(ClientAccountProfile), ...writeErrors },
      },
    },
    async (request) => db.transaction().execute((trx) => updateProfile(trx, actorOf(request), request.body, request.actionTime)),
  );

  app.get(
    '/client-account/preferences',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Newsletter language, channels and notification switches (defaults until first saved)',
        headers: StoreRequestHeaders,
        security,
        response: { 200: success(PreferencesSchema), ...readErrors },
      },
    },
    async (request) => readPreferences(db, actorOf(request)),
  );

  app.put(
    '/client-account/preferences',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Changes the given preferences',
        headers: StoreRequestHeaders,
        body: PreferencesUpdate,
        security,
        response: { 200: success(PreferencesSchema), ...writeErrors },
      },
    },
    async (request) => db.transaction().execute((trx) => updatePreferences(trx, actorOf(request), request.body, request.actionTime)),
  );

  app.get(
    '/category-preference',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'The categories the client follows, in the order chosen (the data export lists them; paged)',
        headers: StoreRequestHeaders,
        querystring: ProfileListQuery,
        security,
        response: { 200: success(Type.Array(CategoryPreferenceSchema), 'list'), ...readErrors },
      },
    },
    // Paged as every list is (page, per-page, X-Pagination-*); at most 50, so read whole and sliced.
    // A page holds all 50 unless asked for fewer: clients written before it was paged read one page.
    async (request, reply) =>
      pageOfList(request, reply, request.query, await readCategoryPreferences(db, actorOf(request), request.language), {
        ...MAIN_API_PAGING,
        defaultPerPage: MAX_FOLLOWED_CATEGORIES,
      }),
  );

  app.put(
    '/category-preference',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: "Replaces the followed categories (codes or ids of this store's categories; at most 50)",
        headers: StoreRequestHeaders,
        body: CategoryPreferenceUpdate,
        security,
        response: { 200: success(Type.Array(CategoryPreferenceSchema)), ...writeErrors },
      },
    },
    async (request) =>
      db
        .transaction()
        .execute((trx) => replaceCategoryPreferences(trx, actorOf(request), request.body.categories, request.language, request.actionTime)),
  );

  await app.register(identityRoutes, deps);
  await app.register(addressRoutes, deps);
};
