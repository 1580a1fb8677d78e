import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { inTransactionRetryingOnUniqueViolation } from '../../db/unique-violation.js';
import { authenticate, optionalPrincipal } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { Clock } from '../../infra/clock.js';
import { DomainError, forbidden } from '../../infra/domain-error.js';
import { perIpRateLimit } from '../../infra/rate-limit.js';
import { newToken } from '../../infra/tokens.js';
import { LoginHeaders, loginBasketRequest, RolesPayload, TokenPayload } from '../accounts/index.js';
import { clearFlowCookie, flowCookieName, readCookie, setFlowCookie, type FlowCookieScope } from './flow-cookie.js';
import { createSocialProviders } from './provider-registry.js';
import { isJsonObject } from './providers.js';
import type { SocialConfig } from './social.config.js';
import { confirmLink } from './social-link.service.js';
import { ConfirmLinkForm, ExternalAnswer, ExternalBody, ExternalParameters, LinkedAnswer, SocialLoginForm } from './social.schemas.js';
import { callbackUrl, startRedirect, type FlowStore, type SocialContext } from './social.service.js';
import { finishRedirect, nativeSignIn, signIn, type ProviderCallback } from './social.use-cases.js';

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
  const cookieScope: FlowCookieScope = {
    path: new URL(callbackUrl(deps.config)).pathname,
    secure: deps.config.social.publicUrl.startsWith('https:'),
  };

  // Apple answers with a cross-site form POST; only this plugin's routes take form bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const externalSchema = {
    tags: ['auth'],
    summary: 'Social sign-in: starts the web redirect flow, takes the provider callback, or checks an app token',
    description:
      'Web: `?authclient=google|facebook|apple[&returnUrl=]` answers 302 to the provider and sets an HttpOnly flow cookie; the ' +
      "provider comes back here (in the same browser: without the cookie the callback is a 403) and it ends in a 302 to the store's " +
      'front-end `/social-login?authId=` (or the error page with `reason`). Started with a bearer token, the web flow links: it lands ' +
      'with `?link=<provider>&authId=`, and the link is made by `POST /auth/external/confirm-link` with that bearer; an identity ' +
      'linked to that user before lands with `?linked=<provider>` and keeps what the provider says now of its email. ' +
      'A link needs a bearer signed in within the last 10 minutes (403 otherwise, before the provider is asked). ' +
      'App: `client`, `id`, `token` (and `nonce`) in the query or a POST body answer `{authId}`, or with a bearer link at once ' +
      '(`{linked}`; 409 when the identity belongs to another user). An ID token is taken once: again, it is a 401. ' +
      'A HEAD is refused as the GET would be for its parameters and address, and is otherwise a 204 that starts, spends and takes nothing.',
    headers: StoreRequestHeaders,
    querystring: ExternalParameters,
    security: [{}, { bearer: [] }] as Record<string, string[]>[],
    response: {
      200: success(ExternalAnswer),
      302: { description: 'Redirect to the provider or back to the front-end', type: 'null' },
      303: { description: "Apple's form POST, sent back here as a GET that carries the flow cookie", type: 'null' },
      ...errors(...storeRouteErrors, 401, 403, 404, 409, 413, 415, 422, 429),
    },
  };
  const external = async (request: FastifyRequest, reply: FastifyReply) => {
    const params: ExternalParameters = {
      ...(request.query as ExternalParameters),
      ...(isJsonObject(request.body) ? (request.body as ExternalParameters) : {}),
    };
    const store = requestStore(request);
    // The callback comes without a store header: the flow's own store is in its transaction.
    const storeOf = async (code: string): Promise<FlowStore> => (await deps.stores.get(code)) ?? store;
    const now = request.actionTime;
    const bearer = await optionalPrincipal(db, request);

    if (params.authclient !== undefined) {
      const browser = newToken();
      const link = bearer && { userId: bearer.userId, tokenHash: bearer.tokenHash };
      const input = { provider: params.authclient, store, language: request.language, returnUrl: params.returnUrl, link };
      const { url, state } = await startRedirect(db, social, { ...input, browserHash: browser.hash }, now);
      reply.header('set-cookie', setFlowCookie(flowCookieName(state), browser.token, cookieScope));
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
        bearer: bearer && { userId: bearer.userId, tokenHash: bearer.tokenHash },
      };
      return nativeSignIn(db, social, input, now).catch((error: unknown) => challengeOnFailure(error, reply));
    }
    if (params.state !== undefined || params.code !== undefined || params.error !== undefined) {
      const { state } = params;
      const cookieName = state === undefined ? undefined : flowCookieName(state);
      const browserNonce = cookieName === undefined ? undefined : readCookie(request.headers.cookie, cookieName);
      const callback = { callback: providerCallback(request, deps.config), state, browserNonce, defaultStore: store };
      const outcome = await finishRedirect(db, social, callback, storeOf, now);
      if (outcome.kind === 'otherBrowser') {
        request.log.warn('social sign-in callback refused: another browser started the flow');
        throw forbidden('auth.flowOtherBrowser');
      }
      if (outcome.kind === 'resume') return reply.redirect(outcome.location, 303);
      if (cookieName !== undefined && browserNonce !== undefined) reply.header('set-cookie', clearFlowCookie(cookieName, cookieScope));
      return reply.redirect(outcome.location, 302);
    }
    throw new HttpError(400, 'auth.externalParameters');
  };
  // A link checker's, a prefetch's or a scanner's HEAD must not start a flow, spend a callback's state
  // (and the provider's one-time code) or take an app's ID token: the browser's or app's own request then failed.
  const getWrites = "starts a sign-in flow, spends a provider callback's state and code, takes an app's ID token";
  app.get('/auth/external', { preValidation: limitPerIp, schema: externalSchema, config: { getWrites } }, external);
  app.post('/auth/external', { preValidation: limitPerIp, schema: { ...externalSchema, body: ExternalBody } }, external);

  // Who confirms a link is settled before the body is looked at, as on every bearer route: no token is a 401, whatever the body.
  const linkingBearers = new WeakMap<FastifyRequest, { userId: number; tokenHash: string }>();
  const requireLinkingBearer = async (request: FastifyRequest) => {
    const { userId, tokenHash } = await authenticate(db, request);
    linkingBearers.set(request, { userId, tokenHash });
  };

  app.post(
    '/auth/external/confirm-link',
    {
      preValidation: [limitPerIp, requireLinkingBearer],
      schema: {
        tags: ['auth'],
        summary: 'Makes the link a web flow started with this bearer token left pending (the mail goes to the account owner)',
        description:
          'The web link flow lands with `?link=<provider>&authId=`; the same user confirms it here within ten minutes. ' +
          "Another user's bearer is a 403 and leaves it pending; an unknown, expired or used authId is a 400; an identity that " +
          'belongs to another user is a 409.',
        headers: StoreRequestHeaders,
        body: ConfirmLinkForm,
        security: [{ bearer: [] }],
        response: { 200: success(LinkedAnswer), ...errors(...storeRouteErrors, 401, 403, 409, 413, 415, 422, 429) },
      },
    },
    async (request) => {
      const input = { authId: request.body.authId, ...linkingBearers.get(request)! };
      // Two pending links of one identity confirmed at once: the second runs again and finds it linked.
      return inTransactionRetryingOnUniqueViolation(db, (trx) => confirmLink(trx, deps.config, input, request.actionTime));
    },
  );

  app.post(
    '/auth/social-login',
    {
      preValidation: limitPerIp,
      schema: {
        tags: ['auth'],
        summary: 'Log in with the authId from /auth/external; with several account types and no role, answers the roles',
        headers: LoginHeaders,
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
        basket: loginBasketRequest(request.headers, request.language),
      };
      return signIn(db, deps.config, input, request.actionTime);
    },
  );
};

/** A provider token that was refused is a failed authentication: the 401 names the scheme the endpoint takes. */
function challengeOnFailure(error: unknown, reply: FastifyReply): never {
  if (error instanceof DomainError && error.kind === 'unauthenticated') reply.header('WWW-Authenticate', 'Bearer realm="storefront"');
  throw error;
}

/** The callback as the provider sent it, at the URL registered with it (PUBLIC_URL + path), and its form if it posted one. */
function providerCallback(request: FastifyRequest, config: SocialConfig): ProviderCallback {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const url = new URL(`${callbackUrl(config)}${query}`);
  if (request.method === 'GET' || !isJsonObject(request.body)) return { url };
  return { url, form: new URLSearchParams(request.body as Record<string, string>).toString() };
}
