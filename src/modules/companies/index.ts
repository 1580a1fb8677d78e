// The companies module's public surface: its routes and their deps, its tables and messages.
export { companiesRoutes } from './companies.routes.js';
export type { CompaniesDeps } from './company-caller.plugin.js';
export type { CompaniesTables, SubCompanyAddressTable, SubCompanyTable } from './companies.tables.js';
export { companiesMessages } from './companies.messages.js';
export { companiesPersonalData } from './companies.personal-data.js';
export { companyOfAccount } from './company-access.js';
