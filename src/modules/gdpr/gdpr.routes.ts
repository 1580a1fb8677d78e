import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { authenticate, type Principal } from '../../http/auth.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { ErasureBody, PersonalDataExport } from './gdpr.schemas.js';
import { eraseCaller, EXPORTS_PER_USER, exportPersonalData, loadSubject, type GdprConfig } from './gdpr.service.js';
import { personalDataParts } from './personal-data-parts.js';
import { registerNoStore } from '../../http/http-cache.js';

export interface GdprDeps {
  database: DatabaseHandle;
  config: GdprConfig;
}

/** "Your data": GET /client-account/export and DELETE /client-account. Bearer token required; never cached. */
export const gdprRoutes: FastifyPluginAsyncTypebox<GdprDeps> = async (app, deps) => {
  const db = deps.database.db;
  const principals = new WeakMap<object, Principal>();
  registerNoStore(app);
  // The caller is settled before the body is looked at: no token is a 401 whatever the body.
  const requireCaller = async (request: Parameters<typeof authenticate>[1]) => {
    principals.set(request, await authenticate(db, request));
  };
  const tags = ['client account'];
  const security = [{ bearer: [] }];

  app.get(
    '/client-account/export',
    {
      preValidation: requireCaller,
      schema: {
        tags,
        summary: 'Everything held about the caller, as a JSON download (5 an hour)',
        headers: StoreRequestHeaders,
        security,
        response: { 200: success(PersonalDataExport), ...errors(...storeRouteErrors, 401, 429) },
      },
    },
    async (request, reply) => {
      const caller = principals.get(request)!;
      await consumeRateLimit(db, `gdpr:export:${caller.userId}`, EXPORTS_PER_USER, request.actionTime);
      const subject = (await loadSubject(db, caller.userId))!;
      const data = await exportPersonalData(db, personalDataParts, subject, request.actionTime);
      // The schema lets every part's key through (additionalProperties): the parts' shapes are their own.
      return reply
        .type('application/json; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="personal-data-${caller.clientCode}.json"`)
        .send(data as { exportedAt: string });
    },
  );

  app.delete(
    '/client-account',
    {
      preValidation: requireCaller,
      schema: {
        tags,
        summary: "Erases the caller's personal data; orders are kept for accounting without the person",
        description:
          'In one transaction: the email becomes a non-deliverable placeholder, names, phone, birthday and gender are cleared, ' +
          'addresses, preferences, consents, newsletter subscriptions, social identities, baskets, comments, ratings, session ' +
          'actions and every token are deleted, orders and sales history lose names, emails, phones and addresses, and every ' +
          'client account is marked ERASED (no login). Confirmation: `password` for users with one (422 when missing or wrong; ' +
          'wrong ones count as failed logins); users who sign in only through a provider must have logged in within the last ' +
          '10 minutes (403 otherwise). 409: an order is still open, or the caller is the last master of a company with other users.',
        headers: StoreRequestHeaders,
        body: ErasureBody,
        security,
        response: { 204: Type.Null({ description: 'Erased' }), ...errors(...storeRouteErrors, 401, 403, 409, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const caller = principals.get(request)!;
      await eraseCaller(
        db,
        deps.config,
        personalDataParts,
        { userId: caller.userId, tokenHash: caller.tokenHash, password: request.body.password, address: request.ip },
        request.actionTime,
      );
      return reply.code(204).send(null);
    },
  );
};
