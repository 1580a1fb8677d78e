// The accounts module's public surface: its routes and their deps, the account mail job, the
// `wholesale` command, the users import, and what other ways of signing in (social) build on.
export { accountsRoutes, type AccountsDeps } from './accounts.routes.js';
export type { MailboxProven } from './accounts.context.js';
export {
  readAccountsConfig,
  readAuthRateLimits,
  type AccountsConfig,
  type AccountsSection,
  type AuthRateLimits,
} from './accounts.config.js';
export { ACCOUNT_MAIL_JOB, accessTokenPruning, queueAccountMail, type AccountMail } from './accounts.jobs.js';
export { accountMailHandler, type AccountMailDeps } from './accounts.mails.js';
export {
  createClientAccount,
  findUserByEmail,
  insertUser,
  isPendingInvitation,
  lockUser,
  touchExportedAccounts,
  changesExportedPerson,
  type ClientAccountRow,
} from './accounts.repository.js';
// For a company's invitation, which adds an account to the user of an email as a registration does.
export { findPersonByEmail } from './registration.service.js';
// The reserved-address rule lives in infra (the newsletter, below accounts, needs it too); given on here
// for the modules that take their registration rules from accounts.
export { refuseReservedEmail } from '../../infra/email-address.js';
// The profile's birthday is registration's: from 1900 up to yesterday in Tallinn.
export { checkBirthday } from './birthday.js';
// For the profile module's email and password changes: the same rules and throttle as sign-up and login.
export { renderMail, type MailContent } from './accounts.mail-templates.js';
export { admitLogin, settleLogin } from './login-throttle.js';
export { passwordFieldErrors, refuseFieldErrors } from './password-rules.js';
export { ACCOUNT_TYPES, LoginHeaders, RolesPayload, TokenPayload } from './accounts.schemas.js';
export {
  loginBasketRequest,
  isSessionLive,
  openSession,
  signedInRecently,
  type LoginBasketRequest,
  type LoginResult,
  type SessionRequest,
} from './session.service.js';
export { activateDroppingCredentials, createActivatedUser } from './users.service.js';
export { importUsers } from './users-import.js';
export { WHOLESALE_USAGE, wholesaleCommand, type WholesaleCommandDeps } from './wholesale.cli.js';
export { BUSINESS_USAGE, businessCommand, type BusinessCommandDeps } from './business.cli.js';
export type {
  AccessTokenTable,
  AccountsTables,
  AppUserTable,
  ClientAccountStatus,
  ClientAccountTable,
  CompanyTable,
  WholesaleRequestStatus,
  WholesaleRequestTable,
} from './accounts.tables.js';
export { accountsMessages } from './accounts.messages.js';
export { accountsPersonalData } from './accounts.personal-data.js';
