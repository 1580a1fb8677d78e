// The social module's public surface: the social sign-in routes, their deps and configuration.
export { socialRoutes, type SocialDeps } from './social.routes.js';
// For the accounts module's reset and verification links (wired in app.ts): the mailbox's owner takes an unconfirmed account over.
export { takeOverProvenMailbox } from './social.service.js';
export {
  readSocialConfig,
  type AppleConfig,
  type FacebookConfig,
  type OidcProviderConfig,
  type SocialConfig,
  type SocialSection,
} from './social.config.js';
export type {
  AuthRecordTable,
  OauthTransactionTable,
  SocialIdentityTable,
  SocialProvider,
  SocialTables,
  UsedIdTokenTable,
} from './social.tables.js';
export { socialSignInPruning, usedIdTokenPruning } from './social.jobs.js';
export { socialMessages } from './social.messages.js';
export { socialPersonalData } from './social.personal-data.js';
