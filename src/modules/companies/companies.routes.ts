import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CompaniesDeps } from './company-caller.plugin.js';
import { companyUserRoutes } from './company-users.routes.js';
import { subCompanyRoutes } from './sub-companies.routes.js';

/** The companies module's routes: company users (business and wholesale) and sub-companies (wholesale). */
export const companiesRoutes: FastifyPluginAsyncTypebox<CompaniesDeps> = async (app, deps) => {
  await app.register(companyUserRoutes, deps);
  await app.register(subCompanyRoutes, deps);
};
