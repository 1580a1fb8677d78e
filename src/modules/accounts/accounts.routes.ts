import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { authenticate, type Principal } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { perIpRateLimit } from '../../infra/rate-limit.js';
import type { AccountsConfig } from './accounts.config.js';
import type { AccountsContext, MailboxProven } from './accounts.context.js';
import {
  BusinessRegistrationForm,
  Empty,
  LoginForm,
  LoginHeaders,
  Me,
  MobileRegistrationForm,
  NewPasswordForm,
  OptionalVerificationTokenQuery,
  ResetPasswordForm,
  ResetTokenQuery,
  RolesPayload,
  SwitchStoreForm,
  TokenPayload,
  VerificationForm,
  VerificationMeta,
  VerificationTokenQuery,
  VerifiedPayload,
  WebRegistrationForm,
  WholesaleRegistrationForm,
} from './accounts.schemas.js';
import { logIn, requestPasswordReset, setNewPassword, verifyEmail } from './accounts.use-cases.js';
import { resetTokenUser } from './password-reset.service.js';
import { registerWholesale, requestBusinessRegistration, requestSimpleRegistration } from './registration.service.js';
import { describeActor, endSession, loginBasketRequest, switchWebStore, type CompanyOf } from './session.service.js';
import { pendingVerification, verificationMeta } from './verification.service.js';

const formErrors = errors(...storeRouteErrors, 413, 415, 422, 429);
const tags = ['auth'];

/** What the account routes need: the database, the configuration they read, and what a link to the mailbox proves. */
export interface AccountsDeps {
  database: DatabaseHandle;
  config: AccountsConfig;
  /** Run when a reset or verification link is used (accounts.context.ts); wired by the app to other modules. */
  mailboxProven: MailboxProven;
  /** The company a client account acts for and its role there, null for a retail account (the companies module's). */
  companyOf: CompanyOf;
}

/** The spec's account endpoints, plus logout and /user/me so a client can check its token. */
export const accountsRoutes: FastifyPluginAsyncTypebox<AccountsDeps> = async (app, deps) => {
  const db = deps.database.db;
  const config = deps.config;

  // Counted before validation, so malformed guesses count too.
  const limitPerIp = perIpRateLimit(db, config.rateLimits.authPerIp);
  const context = (request: FastifyRequest): AccountsContext => ({
    config,
    storeCode: requestStore(request).code,
    language: request.language,
  });
  const registration = { preValidation: limitPerIp };
  // A login answers with the client's basket, the guest basket of this header merged in.
  const loginBasket = (request: FastifyRequest) => loginBasketRequest(request.headers, request.language);

  app.post(
    '/auth/register',
    {
      ...registration,
      schema: {
        tags,
        summary: 'Register a retail customer (mobile scenario: only the email is required)',
        headers: StoreRequestHeaders,
        body: MobileRegistrationForm,
        response: { 200: success(MobileRegistrationForm), ...formErrors },
      },
    },
    async (request) => {
      await db.transaction().execute((trx) => requestSimpleRegistration(trx, context(request), request.body, request.actionTime));
      return request.body;
    },
  );

  app.post(
    '/auth/register-simple',
    {
      ...registration,
      schema: {
        tags,
        summary: 'Register a retail customer (web scenario: names required)',
        headers: StoreRequestHeaders,
        body: WebRegistrationForm,
        response: { 200: success(WebRegistrationForm), ...formErrors },
      },
    },
    async (request) => {
      await db.transaction().execute((trx) => requestSimpleRegistration(trx, context(request), request.body, request.actionTime));
      return request.body;
    },
  );

  app.post(
    '/auth/register-business',
    {
      ...registration,
      schema: {
        tags,
        summary: 'Register a business customer: company and business account in this store',
        headers: StoreRequestHeaders,
        body: BusinessRegistrationForm,
        response: { 200: success(BusinessRegistrationForm), ...formErrors },
      },
    },
    async (request) => {
      await db.transaction().execute((trx) => requestBusinessRegistration(trx, context(request), request.body, request.actionTime));
      return request.body;
    },
  );

  app.post(
    '/auth/register-wholesale',
    {
      ...registration,
      schema: {
        tags,
        summary: 'Apply to become a wholesale customer (approved by the back office)',
        headers: StoreRequestHeaders,
        body: WholesaleRegistrationForm,
        response: { 200: success(WholesaleRegistrationForm), ...formErrors },
      },
    },
    async (request) => {
      await db.transaction().execute((trx) => registerWholesale(trx, context(request), request.body, request.actionTime));
      return request.body;
    },
  );

  const explicitStore = (request: FastifyRequest) => (request.headers.store === undefined ? undefined : requestStore(request).code);
  /**
   * A single-use token from the query (as the spec gives it) or from the JSON body (which keeps it
   * out of URLs and so out of access logs and browser history); undefined when it is in neither,
   * is not a string, or the two places disagree.
   */
  const tokenOf = (request: FastifyRequest, name: string): string | undefined => {
    const inQuery = (request.query as Record<string, unknown> | undefined)?.[name];
    const body = request.body;
    const inBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
    if (inQuery !== undefined && inBody !== undefined && inQuery !== inBody) return undefined;
    const token = inBody ?? inQuery;
    return typeof token === 'string' ? token : undefined;
  };

  app.get(
    '/auth/verify-email-meta',
    {
      preValidation: limitPerIp,
      schema: {
        tags,
        summary: 'What the verification page shows about the user',
        headers: StoreRequestHeaders,
        querystring: VerificationTokenQuery,
        response: { 200: success(VerificationMeta), ...errors(...storeRouteErrors, 429) },
      },
    },
    async (request) => verificationMeta(db, request.query.verificationToken, explicitStore(request), request.actionTime),
  );

  app.post(
    '/auth/verify-email',
    {
      preValidation: [
        limitPerIp,
        async (request) => {
          // Fastify validates the body before the query, so the token is checked here first.
          const token = tokenOf(request, 'verificationToken');
          if (token === undefined) throw new HttpError(400, 'auth.badVerificationToken');
          await pendingVerification(db, token, explicitStore(request), request.actionTime);
        },
      ],
      schema: {
        tags,
        summary: 'Confirm the email, set the password and log in (the token in the query or, better, in the body)',
        headers: LoginHeaders,
        querystring: OptionalVerificationTokenQuery,
        body: VerificationForm,
        response: { 200: success(VerifiedPayload), ...formErrors },
      },
    },
    async (request) =>
      verifyEmail(
        db,
        config,
        deps.mailboxProven,
        {
          token: tokenOf(request, 'verificationToken')!,
          storeCode: explicitStore(request),
          form: request.body,
          basket: loginBasket(request),
        },
        request.actionTime,
      ),
  );

  app.post(
    '/auth/reset-password',
    {
      preValidation: limitPerIp,
      schema: {
        tags,
        summary: 'Mail a password reset link (the answer never tells whether the email exists)',
        headers: StoreRequestHeaders,
        body: ResetPasswordForm,
        response: { 200: success(Empty), ...formErrors },
      },
    },
    async (request) => {
      await requestPasswordReset(db, context(request), request.body.email, request.actionTime);
      return {};
    },
  );

  app.post(
    '/auth/set-new-password',
    {
      preValidation: [
        limitPerIp,
        async (request) => {
          const token = tokenOf(request, 'passwordResetToken');
          if (token === undefined) throw new HttpError(400, 'auth.badResetToken');
          await resetTokenUser(db, token, request.actionTime);
        },
      ],
      schema: {
        tags,
        summary:
          'Set a new password with the token from the reset mail (in the query or, better, in the body); ends every session and mails the account that its password was changed',
        headers: StoreRequestHeaders,
        querystring: ResetTokenQuery,
        body: NewPasswordForm,
        response: { 200: success(Empty), ...formErrors },
      },
    },
    async (request) => {
      await setNewPassword(
        db,
        context(request),
        deps.mailboxProven,
        tokenOf(request, 'passwordResetToken')!,
        request.body,
        request.actionTime,
      );
      return {};
    },
  );

  app.post(
    '/auth/login',
    {
      preValidation: limitPerIp,
      schema: {
        tags,
        summary: 'Log in; with several account types and no role given, answers the roles to choose from',
        headers: LoginHeaders,
        body: LoginForm,
        response: { 200: success(Type.Union([TokenPayload, RolesPayload])), ...formErrors },
      },
    },
    async (request) => logIn(db, config, { form: request.body, address: request.ip, basket: loginBasket(request) }, request.actionTime),
  );

  const bearerErrors = errors(...storeRouteErrors, 401);
  // Who is calling is settled before the body is looked at: no token is a 401, whatever the body.
  const principals = new WeakMap<FastifyRequest, Principal>();
  const requireBearer = async (request: FastifyRequest) => {
    principals.set(request, await authenticate(db, request));
  };
  const principalOf = (request: FastifyRequest) => principals.get(request)!;

  app.post(
    '/auth/switch-web-store',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: "Re-issue a retail customer's token for the other web store (with the basket there)",
        headers: LoginHeaders,
        body: SwitchStoreForm,
        security: [{ bearer: [] }],
        response: { 200: success(TokenPayload), ...bearerErrors, ...errors(413, 415, 422) },
      },
    },
    async (request) => {
      const input = { target: request.body.webStoreNavCode, basket: loginBasket(request) };
      return db.transaction().execute((trx) => switchWebStore(trx, config, principalOf(request), input, request.actionTime));
    },
  );

  app.post(
    '/auth/logout',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: 'Revoke the presented token',
        headers: StoreRequestHeaders,
        security: [{ bearer: [] }],
        response: { 200: success(Empty), ...bearerErrors },
      },
    },
    async (request) => {
      await endSession(db, principalOf(request));
      return {};
    },
  );

  app.get(
    '/user/me',
    {
      preValidation: requireBearer,
      schema: {
        tags: ['user'],
        summary: 'Who the token belongs to: user, client account, store and role',
        headers: StoreRequestHeaders,
        security: [{ bearer: [] }],
        response: { 200: success(Me), ...bearerErrors },
      },
    },
    async (request) => describeActor(db, principalOf(request), deps.companyOf),
  );
};
