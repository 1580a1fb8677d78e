import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { inTransactionRetryingOnUniqueViolation, isUniqueViolation } from '../../db/unique-violation.js';
import { conflict } from '../../infra/domain-error.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, success } from '../../http/schemas.js';
import { CompanyUser, CompanyUserChange, CompanyUserInvitation, Empty, IdParams, ListQuery } from './companies.schemas.js';
import { bearerCaller, callerErrors, SECURITY, type CompaniesDeps } from './company-caller.plugin.js';
import { companyMaster, lockedMaster } from './company-access.js';
import { changeCompanyUser, countInvitation, inviteCompanyUser, listCompanyUsers, removeCompanyUser } from './company-users.service.js';

const tags = ['company users'];
const headers = StoreRequestHeaders;

/** A business or wholesale company's users in the request's store, managed by its master users. */
export const companyUserRoutes: FastifyPluginAsyncTypebox<CompaniesDeps> = async (app, deps) => {
  const db = deps.database.db;
  const { requireBearer, principalOf } = bearerCaller(app, deps.database);
  const master = (request: Parameters<typeof principalOf>[0]) => companyMaster(db, principalOf(request));

  app.get(
    '/company-user',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: "The company's users in this store (masters, employees, invitations not yet accepted), oldest first",
        headers,
        querystring: ListQuery,
        security: SECURITY,
        response: { 200: success(Type.Array(CompanyUser), 'list'), ...callerErrors },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { items, total } = await listCompanyUsers(db, await master(request), page);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.post(
    '/company-user',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: 'Invite a person into the company by email',
        description:
          'Creates the user when the email is new and a client account of the company in this store, and mails the ' +
          'invitation link with which the person sets a password. A retail account of the person in this store does not ' +
          'stand in the way: the company account is made beside it (login then asks which role). Inviting again a person ' +
          'this company invited who has not accepted (their link expired or not) renews the invitation: the same user, ' +
          'with the role and names given now, and a new link mailed; the one mailed before stops working. The same form ' +
          'again within 5 minutes (a double click, a retry) is answered the invitation as it is, and mails nothing. 409 when the ' +
          'email has a business or wholesale account in this store that was accepted, waits for the back office, or is ' +
          "another company's invitation; one a company removed does not count: this company gets its own back, another " +
          'company makes a new one. Renewals count against the limits below as invitations do. ' +
          'A company may send 50 invitations an hour, and 5 of them to one address (each company counts its own, so one company ' +
          "cannot use up another's invitations of a person; 429 past either).",
        headers,
        body: CompanyUserInvitation,
        security: SECURITY,
        response: { 200: success(CompanyUser), ...callerErrors, ...errors(409, 413, 415, 422, 429) },
      },
    },
    async (request) => {
      await countInvitation(db, await master(request), request.body.email, request.actionTime);
      try {
        // Another request creating the address's user (a shop registration, another company's invitation)
        // at once: this one's user or account write meets it on a unique key (app_user's email,
        // client_account_live_uq). Run again, it finds what that request made: a user to give the
        // company account to, or an account of this kind (the service's 409).
        return await inTransactionRetryingOnUniqueViolation(db, async (trx) => {
          const caller = await lockedMaster(trx, principalOf(request), companyMaster);
          const input = { invitation: request.body, language: request.language };
          return await inviteCompanyUser(trx, deps.config, caller, input, request.actionTime);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict('companies.emailHasAccount');
        throw error;
      }
    },
  );

  app.put(
    '/company-user/:id',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: "Change a company user's role or name",
        description: 'A master cannot take the master role from themselves, and the company keeps an active master (409).',
        headers,
        params: IdParams,
        body: CompanyUserChange,
        security: SECURITY,
        response: { 200: success(CompanyUser), ...callerErrors, ...errors(404, 409, 413, 415, 422) },
      },
    },
    async (request) =>
      db.transaction().execute(async (trx) => {
        const caller = await lockedMaster(trx, principalOf(request), companyMaster);
        return changeCompanyUser(trx, caller, request.params.id, request.body, request.actionTime);
      }),
  );

  app.delete(
    '/company-user/:id',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: 'Remove a user from the company: their account here is closed and their sessions end',
        description: 'Never the last active master (409).',
        headers,
        params: IdParams,
        security: SECURITY,
        response: { 200: success(Empty), ...callerErrors, ...errors(404, 409) },
      },
    },
    async (request) => {
      await db.transaction().execute(async (trx) => {
        const caller = await lockedMaster(trx, principalOf(request), companyMaster);
        await removeCompanyUser(trx, caller, request.params.id, request.actionTime);
      });
      return {};
    },
  );
};
