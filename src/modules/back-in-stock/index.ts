// Back-in-stock's public surface: its routes (app.ts), the worker's scan, mail jobs and prune task
// (worker.ts), its config section (config.ts), tables (schema.ts) and messages (messages.ts), and
// what profile calls when a person's login email changes.
export { backInStockRoutes, type BackInStockDeps } from './back-in-stock.routes.js';
export {
  BACK_IN_STOCK_CONFIRMATION_JOB,
  BACK_IN_STOCK_MAIL_JOB,
  BACK_IN_STOCK_SCAN_INTERVAL_MS,
  type ClientMailbox,
  type ConfirmedEmailOf,
  type WantsBackInStockMails,
  backInStockConfirmationHandler,
  backInStockMailHandler,
  backInStockPruning,
  scanBackInStock,
  scheduleBackInStockScan,
} from './back-in-stock.jobs.js';
export { readBackInStockConfig, type BackInStockSection } from './back-in-stock.config.js';
export { moveRequestsToLoginEmail, REQUEST_LIFETIME_MS } from './back-in-stock.service.js';
export type * from './back-in-stock.tables.js';
export { backInStockMessages } from './back-in-stock.messages.js';
export { backInStockPersonalData } from './back-in-stock.personal-data.js';
