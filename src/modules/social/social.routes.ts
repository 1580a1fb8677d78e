import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app.js';
import { authenticate } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { perIpRateLimit } from '../../infra/rate-limit.js';
import { ACCOUNT_TYPES, RolesPayload, TokenPayload } from '../accounts/accounts.schemas.js';
import { isStoreCode, type StoreSettings } from '../store/store.service.js';
import { createSocialProviders } from './provider-registry.js';
import { finishRedirect, nativeSignIn, socialLogin, startRedirect, type SocialDeps } from './social.service.js';

const text = (maxLength: number, description?: string) => Type.Optional(Type.String({ maxLength, description }));

// Providers add parameters of their own (scope, authuser, prompt, iss ...): they are let through.
const ExternalParameters = Type.Object(
  {
    authclient: text(20, 'Web flow: google, facebook or apple; answers 302 to the provider'),
    returnUrl: text(1000, 'Web flow: a page of the store to come back to'),
    client: text(20, 'App flow: google, facebook or apple'),
    id: text(255, "App flow: the provider's user id"),
    token: text(8192, 'App flow: ID token (Google, Apple, Facebook Limited Login) or Facebook access token'),
    nonce: text(255, 'App flow: the nonce the ID token must carry'),
    state: text(500, 'Provider callback'),
    code: text(2000, 'Provider callback'),
    error: text(200, 'Provider callback'),
    user: text(2000, "Apple callback: the user's name, first authorization only"),
  },
  { additionalProperties: true },
);
type ExternalParameters = Record<string, string | undefined>;

const SocialLoginForm = Type.Object({
  authId: Type.String({ minLength: 1, maxLength: 200, description: 'From /auth/external' }),
  role: Type.Optional(Type.Union(ACCOUNT_TYPES.map((type) => Type.Literal(type)))),
  isNativeForm: Type.Boolean({ description: "Whether the login came from the app's native form" }),
});

const ExternalAnswer = Type.Union([
  Type.Object({ authId: Type.String({ description: 'Send to /auth/social-login within ten minutes' }) }),
  Type.Object({ linked: Type.String({ description: 'The provider now linked to the account' }) }),
]);

export const socialRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const social: SocialDeps = { db: deps.database.db, config: deps.config, providers: createSocialProviders(deps.config.social) };
  const limitPerIp = perIpRateLimit(social.db, deps.config.rateLimits.authPerIp);

  // Apple answers with a cross-site form POST; only this plugin's routes take form bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/auth/external',
    preValidation: limitPerIp,
    schema: {
      tags: ['auth'],
      summary: 'Social sign-in: starts the web redirect flow, takes the provider callback, or checks an app token',
      description:
        'Web: `?authclient=google|facebook|apple[&returnUrl=]` answers 302 to the provider, which comes back here and ends in a 302 to the ' +
        "store's front-end `/social-login?authId=` (or the error page with `reason`). App: `?client=&id=&token=` answers `{authId}`. " +
        'With a bearer token the identity is linked to that user instead (`{linked}`; 409 when it belongs to another user).',
      headers: StoreRequestHeaders,
      querystring: ExternalParameters,
      security: [{}, { bearer: [] }],
      response: {
        200: success(ExternalAnswer),
        302: { description: 'Redirect to the provider or back to the front-end', type: 'null' },
        ...errors(...storeRouteErrors, 401, 404, 409, 413, 415, 429),
      },
    },
    handler: async (request, reply) => {
      const params: ExternalParameters = { ...(request.query as ExternalParameters), ...(isRecord(request.body) ? (request.body as ExternalParameters) : {}) };
      const store = requestStore(request);
      // The callback comes without a store header: the flow's own store is in its transaction.
      const storeOf = async (code: string): Promise<StoreSettings> => (isStoreCode(code) ? await deps.stores.get(code) : undefined) ?? store;
      const now = request.actionTime;
      const linkUserId = request.headers.authorization === undefined ? undefined : (await authenticate(social.db, request)).userId;

      if (params.authclient !== undefined) {
        const url = await startRedirect(social, { provider: params.authclient, store, language: request.language, returnUrl: params.returnUrl, linkUserId, now });
        return reply.redirect(url.toString(), 302);
      }
      if (params.client !== undefined) {
        if (!params.id || !params.token) throw new HttpError(400, 'auth.externalParameters');
        return nativeSignIn(social, { provider: params.client, id: params.id, token: params.token, nonce: params.nonce, store, language: request.language, linkUserId, now });
      }
      if (params.state !== undefined || params.code !== undefined || params.error !== undefined) {
        const location = await finishRedirect(social, { state: params.state, callback: callbackRequest(request, social), appleUser: params.user, defaultStore: store, now }, storeOf);
        return reply.redirect(location, 302);
      }
      throw new HttpError(400, 'auth.externalParameters');
    },
  });

  app.post(
    '/auth/social-login',
    {
      preValidation: limitPerIp,
      schema: {
        tags: ['auth'],
        summary: 'Log in with the authId from /auth/external; with several account types and no role, answers the roles',
        headers: StoreRequestHeaders,
        body: SocialLoginForm,
        response: { 200: success(Type.Union([TokenPayload, RolesPayload])), ...errors(...storeRouteErrors, 413, 415, 422, 429) },
      },
    },
    async (request) =>
      socialLogin(social, {
        authId: request.body.authId,
        role: request.body.role,
        isNativeForm: request.body.isNativeForm,
        store: requestStore(request),
        language: request.language,
        now: request.actionTime,
      }),
  );
};

/** The callback as the provider sent it, at the URL registered with it (PUBLIC_URL + path). */
function callbackRequest(request: FastifyRequest, deps: SocialDeps): URL | Request {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const url = new URL(`${deps.config.social.publicUrl}${deps.config.basePath}/auth/external${query}`);
  if (request.method === 'GET' || !isRecord(request.body)) return url;
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(request.body as Record<string, string>).toString(),
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
