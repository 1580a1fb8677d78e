import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { changeUser, confirmEmailChange } from './identity.service.js';
import { profileAuth } from './profile.plugin.js';
import type { ProfileDeps } from './profile.deps.js';
import { ConfirmEmailBody, EmailConfirmed, UserUpdate, UserUpdated } from './profile.schemas.js';

/** PUT /user/me and the confirmation of an email change (GET /user/me is the accounts module's). */
export const identityRoutes: FastifyPluginAsyncTypebox<ProfileDeps> = async (app, deps) => {
  const db = deps.database.db;
  const { requireActor, actorOf } = profileAuth(app, db);
  const tags = ['user'];
  const security = [{ bearer: [] }];

  app.put(
    '/user/me',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Changes the login email (once the new address confirms it) or the password (the current one required)',
        description:
          'A new email gets a confirmation link (valid 24 hours) and takes effect only when it is posted to POST /user/me/confirm-email; ' +
          'the answer is the same whether or not the address is taken. A new password ends every other session. ' +
          'A wrong current password is a 422 and counts as a failed login (429 past the limit). ' +
          'A user whose login email is not confirmed (GET /client-account: emailConfirmed) gives the same address to have the link ' +
          'mailed to it; otherwise the same address is a 422.',
        headers: StoreRequestHeaders,
        body: UserUpdate,
        security,
        response: { 200: success(UserUpdated), ...errors(...storeRouteErrors, 401, 403, 413, 415, 422, 429) },
      },
    },
    async (request) =>
      changeUser(
        db,
        deps.config,
        { actor: actorOf(request), input: request.body, address: request.ip, language: request.language },
        request.actionTime,
      ),
  );

  app.post(
    '/user/me/confirm-email',
    {
      preValidation: requireActor,
      schema: {
        tags,
        summary: 'Confirms an email change with the token from the mail to the new address; the old address is told',
        description:
          "400: the token is unknown, expired, replaced by a newer request or another user's. 409: the address became another user's meanwhile. " +
          'The login email is confirmed from then on; the link to the address the user has already only confirms it.',
        headers: StoreRequestHeaders,
        body: ConfirmEmailBody,
        security,
        response: { 200: success(EmailConfirmed), ...errors(...storeRouteErrors, 401, 409, 413, 415, 422) },
      },
    },
    async (request) =>
      db
        .transaction()
        .execute((trx) => confirmEmailChange(trx, deps.config, actorOf(request), request.body.token, request.language, request.actionTime)),
  );
};
