import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { authenticate } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { Clock } from '../../infra/clock.js';
import { DomainError } from '../../infra/domain-error.js';
import { perIpRateLimit } from '../../infra/rate-limit.js';
import { ACCOUNT_TYPES, RolesPayload, TokenPayload } from '../accounts/index.js';
import { createSocialProviders } from './provider-registry.js';
import type { SocialConfig } from './social.config.js';
import { socialLogin, startRedirect, type FlowStore, type SocialContext } from './social.service.js';
import { finishRedirect, nativeSignIn } from './social.use-cases.js';

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

/** What the social routes need: the database, the configuration they read, and the web stores. */
export interface SocialDeps {
  database: DatabaseHandle;
  config: SocialConfig;
  /** The store a redirect flow started in (its callback comes without a store header). */
  stores: { get(code: string): Promise<FlowStore | undefined> };
  /** For the providers' own clocks (Apple's client secret); the flows use the request's action time. */
  clock?: Clock;
}

export const socialRoutes: FastifyPluginAsyncTypebox<SocialDeps> = async (app, deps) => {
  const db = deps.database.db;
  const social: SocialContext = { config: deps.config, providers: createSocialProviders(deps.config.social, deps.clock) };
  const limitPerIp = perIpRateLimit(db, deps.config.rateLimits.authPerIp);

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
      const params: ExternalParameters = {
        ...(request.query as ExternalParameters),
        ...(isRecord(request.body) ? (request.body as ExternalParameters) : {}),
      };
      const store = requestStore(request);
      // The callback comes without a store header: the flow's own store is in its transaction.
      const storeOf = async (code: string): Promise<FlowStore> => (await deps.stores.get(code)) ?? store;
      const now = request.actionTime;
      const linkUserId = request.headers.authorization === undefined ? undefined : (await authenticate(db, request)).userId;

      if (params.authclient !== undefined) {
        const url = await startRedirect(
          db,
          social,
          { provider: params.authclient, store, language: request.language, returnUrl: params.returnUrl, linkUserId },
          now,
        );
        return reply.redirect(url.toString(), 302);
      }
      if (params.client !== undefined) {
        if (!params.id || !params.token) throw new HttpError(400, 'auth.externalParameters');
        const input = {
          provider: params.client,
          id: params.id,
          token: params.token,
          nonce: params.nonce,
          store,
          language: request.language,
          linkUserId,
        };
        return nativeSignIn(db, social, input, now).catch((error: unknown) => challengeOnFailure(error, reply));
      }
      if (params.state !== undefined || params.code !== undefined || params.error !== undefined) {
        const callback = callbackRequest(request, deps.config);
        const location = await finishRedirect(
          db,
          social,
          { state: params.state, callback, appleUser: params.user, defaultStore: store },
          storeOf,
          now,
        );
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
    async (request) => {
      const input = {
        authId: request.body.authId,
        role: request.body.role,
        isNativeForm: request.body.isNativeForm,
        storeCode: requestStore(request).code,
        language: request.language,
      };
      return db.transaction().execute((trx) => socialLogin(trx, deps.config, input, request.actionTime));
    },
  );
};

/** A provider token that was refused is a failed authentication: the 401 names the scheme the endpoint takes. */
function challengeOnFailure(error: unknown, reply: FastifyReply): never {
  if (error instanceof DomainError && error.kind === 'unauthenticated') reply.header('WWW-Authenticate', 'Bearer realm="storefront"');
  throw error;
}

/** The callback as the provider sent it, at the URL registered with it (PUBLIC_URL + path). */
function callbackRequest(request: FastifyRequest, config: SocialConfig): URL | Request {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const url = new URL(`${config.social.publicUrl}${config.basePath}/auth/external${query}`);
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
