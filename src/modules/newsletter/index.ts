// The newsletter module's public surface: its routes, its mail job, the export command, and the
// unsubscribe headers every marketing mail carries.
export { newsletterRoutes, type NewsletterDeps } from './newsletter.routes.js';
export { readNewsletterConfig, type NewsletterConfig, type NewsletterSection } from './newsletter.config.js';
export { NEWSLETTER_MAIL_JOB, type NewsletterMail } from './newsletter.jobs.js';
export { newsletterMailHandler, type NewsletterMailDeps } from './newsletter.mails.js';
export { newsletterRequestPruning } from './newsletter.pruning.js';
export { newsletterUnsubscribeHeaders, type Recipient } from './unsubscribe-link.js';
// Checkout's "subscribe me" box asks for a subscription the same way (double opt-in).
export { requestSubscription } from './newsletter.service.js';
// Registration's tick (the email just verified) and the profile's consent set it directly.
export { setConfirmedAddressConsent, syncNewsletterFlag } from './newsletter.service.js';
// The client's newsletter language preference is its subscription's language in the store.
export { setSubscribedLanguage, subscribedLanguage } from './newsletter.service.js';
// The profile's email consent tells when it was last given and withdrawn, whichever link or switch did it.
export { newsletterConsentTimes } from './newsletter.service.js';
// The one writer of the person's consent history: the profile's switch of SMS and PERSONALISATION
// records its changes through it, as the newsletter records the EMAIL consent's.
export { insertConsentEvent } from './newsletter.repository.js';
// A confirmed email change moves the person's subscriptions to the new address.
export { moveToConfirmedAddress } from './newsletter.service.js';
export { NEWSLETTER_USAGE, newsletterCommand } from './newsletter.cli.js';
export type { NewsletterRequestTable, NewsletterSubscriberTable, NewsletterTables } from './newsletter.tables.js';
export { newsletterMessages } from './newsletter.messages.js';
export { newsletterPersonalData } from './newsletter.personal-data.js';
