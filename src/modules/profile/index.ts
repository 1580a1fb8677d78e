// The profile module's public surface: its routes, the mail job for the worker, its tables and
// messages, and the saved addresses and notification preferences other modules offer or honour.
export { profileRoutes } from './profile.routes.js';
export type { ProfileDeps } from './profile.deps.js';
export { PROFILE_MAIL_JOB, type ProfileMail } from './profile.jobs.js';
export { profileMailHandler, type ProfileMailDeps } from './profile.mails.js';
export { listAddresses as savedAddresses } from './address.service.js';
export { AddressSchema, type AddressWire, type Preferences } from './profile.schemas.js';
export { marketingEmailOf, readPreferences, wantsBackInStockMails, wantsOrderUpdateMails } from './profile.service.js';
export type { ProfileTables } from './profile.tables.js';
export { profileMessages } from './profile.messages.js';
export { profilePersonalData } from './profile.personal-data.js';
// Whether a user's login email is confirmed: social sign-in and the accounts' mailed links (as the
// app wires them) record and confirm it, and what the shop keeps by email reaches the user only
// while it is (modules/gdpr, unconfirmedEmailOf, and the virtual gift cards sent to that address:
// confirmedLoginEmailOf, handed by the app to the gift cards and to back-in-stock's routes and mail
// job). Only a social sign-up the provider did not vouch for leaves it
// unconfirmed; a password reset or verification link followed from the mailbox confirms it and
// takes the account over (dcf8900), whatever migration 0840's comment says about passwords set
// through links (that is only whom it marked). The whole rule: docs/architecture.md.
export {
  confirmedLoginEmailOf,
  isLoginEmailConfirmed,
  markLoginEmailConfirmed,
  markLoginEmailConfirmedIf,
  markLoginEmailUnconfirmed,
} from './profile.repository.js';
// Who may be mailed wishlist offers (preferences, consent, a live account, a confirmed login email):
// the worker hands these to the wishlist's scan and mail job, as it hands back-in-stock confirmedLoginEmailOf.
export { wishlistOfferRecipient, wishlistOfferRecipients, type OfferRecipient } from './profile.repository.js';
