import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, success } from '../../http/schemas.js';
import { Empty, IdParams, ListQuery, SubCompany, SubCompanyChange, SubCompanyForm } from './companies.schemas.js';
import { bearerCaller, callerErrors, SECURITY, type CompaniesDeps } from './company-caller.plugin.js';
import { lockedMaster, wholesaleMaster } from './company-access.js';
import { changeSubCompany, createSubCompany, listSubCompanies, removeSubCompany } from './sub-companies.service.js';

const tags = ['sub-companies'];
const headers = StoreRequestHeaders;

/** A wholesale company's sub-companies and their delivery addresses, managed by its master users. */
export const subCompanyRoutes: FastifyPluginAsyncTypebox<CompaniesDeps> = async (app, deps) => {
  const db = deps.database.db;
  const { requireBearer, principalOf } = bearerCaller(app, deps.database);

  app.get(
    '/sub-company',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: "The wholesale company's sub-companies with their delivery addresses, oldest first",
        headers,
        querystring: ListQuery,
        security: SECURITY,
        response: { 200: success(Type.Array(SubCompany), 'list'), ...callerErrors },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { items, total } = await listSubCompanies(db, await wholesaleMaster(db, principalOf(request)), page);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.post(
    '/sub-company',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: 'Add a sub-company',
        headers,
        body: SubCompanyForm,
        security: SECURITY,
        response: { 200: success(SubCompany), ...callerErrors, ...errors(413, 415, 422) },
      },
    },
    async (request) =>
      db.transaction().execute(async (trx) => {
        const caller = await lockedMaster(trx, principalOf(request), wholesaleMaster);
        return createSubCompany(trx, caller, request.body, request.actionTime);
      }),
  );

  app.put(
    '/sub-company/:id',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: 'Change a sub-company; addresses, when given, replace all of its addresses',
        headers,
        params: IdParams,
        body: SubCompanyChange,
        security: SECURITY,
        response: { 200: success(SubCompany), ...callerErrors, ...errors(404, 413, 415, 422) },
      },
    },
    async (request) =>
      db.transaction().execute(async (trx) => {
        const caller = await lockedMaster(trx, principalOf(request), wholesaleMaster);
        return changeSubCompany(trx, caller, request.params.id, request.body, request.actionTime);
      }),
  );

  app.delete(
    '/sub-company/:id',
    {
      preValidation: requireBearer,
      schema: {
        tags,
        summary: 'Delete a sub-company and its addresses',
        headers,
        params: IdParams,
        security: SECURITY,
        response: { 200: success(Empty), ...callerErrors, ...errors(404) },
      },
    },
    async (request) => {
      await db
        .transaction()
        .execute(async (trx) => removeSubCompany(trx, await lockedMaster(trx, principalOf(request), wholesaleMaster), request.params.id));
      return {};
    },
  );
};
