// The basket's public surface: its routes, the cleanup task, its import kinds, and what the
// login answers use to merge a guest basket into a client's (loginBasket) inside their own
// transaction.
export { basketRoutes, type BasketDeps } from './basket.routes.js';
export { readBasketConfig, type BasketSection } from './basket.config.js';
export { basketPruning } from './basket.jobs.js';
// The worker's reminder of a basket left behind: its scan, mail job and prune task.
export {
  BASKET_REMINDER_JOB,
  basketReminderMailHandler,
  basketReminderPruning,
  scanBasketReminders,
  scheduleBasketReminderScan,
  type MarketingEmailOf,
} from './basket-reminders.js';
export { loginBasket, mergeGuestInto, type LoginBasketInput } from './merge.service.js';
export { BasketSchema, type BasketWire } from './basket.schemas.js';
export { basketImportKinds } from './basket.import-kinds.js';
export type * from './basket.tables.js';
export { basketMessages } from './basket.messages.js';
// Checkout runs these in its own transaction (modules/orders).
export * as basketCheckout from './basket.checkout.js';
export { basketHttp } from './basket-request.routes.js';
// Putting an earlier order's products back (modules/orders, POST /order/{code}/repeat), in writeLines' transaction.
export { topUpProducts, type RefusedProduct } from './basket.service.js';
export { availableDeliveryMethods, HOME_COUNTRY } from './delivery/delivery.service.js';
export { deliveryMethodWire } from './delivery/delivery.wire.js';
export { ChosenDeliverySchema, DeliveryMethodSchema } from './basket.schemas.js';
export { chosenDeliveryWire } from './basket.wire.js';
export { basketPersonalData, basketReminderPersonalData } from './basket.personal-data.js';
