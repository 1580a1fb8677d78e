// The subscriptions module's public surface: its routes, import kind, billing (CLI and worker; the
// count of charges stuck pending, for /metrics), what seals and opens saved cards' tokens (each process's, from its settings),
// mails, refunds, maintenance, the handler of its payments' callbacks, what its takes give to download
// (accessibleTakes and subscriptionGivingAccess, for the downloads module), its part of "your
// data", tables and messages.
export { subscriptionsRoutes, type SubscriptionsDeps } from './subscriptions.routes.js';
export { subscriptionPlansKind } from './plans.import.js';
export { billDue, stuckChargeCount, type BillingReport } from './billing.service.js';
export { subscriptionStats, type MonthStats } from './stats.service.js';
export { scheduleSubscriptionBilling, subscriptionPayments } from './subscriptions.jobs.js';
export {
  answerDeadlineHandler,
  SUBSCRIPTION_ANSWER_DEADLINE_JOB,
  SUBSCRIPTION_MAIL_JOB,
  subscriptionMailHandler,
} from './subscriptions.mails.js';
export { SUBSCRIPTION_REFUND_JOB, subscriptionRefundHandler } from './refunds.js';
export { pruneCards as subscriptionCardPruning } from './cards.service.js';
export { accessibleTakes, subscriptionGivingAccess } from './takes.repository.js';
export { subscriptionsPersonalData } from './subscriptions.personal-data.js';
export { cardTokensFor, type CardTokens } from './card-tokens.js';
export type * from './subscriptions.tables.js';
export { subscriptionsMessages } from './subscriptions.messages.js';
