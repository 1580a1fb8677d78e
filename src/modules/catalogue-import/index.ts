// The back office's catalogue feeds: one import kind per NDJSON format (docs/import.md); the
// registry of every kind is the composition root src/import-kinds.ts.
export { catalogueImportKinds } from './kinds.js';
// The line helpers other modules' import kinds share (the basket's discount codes and delivery methods, the users,
// the sales history).
export {
  Code,
  DateValue,
  Email,
  Line,
  LineError,
  Money,
  Name,
  Position,
  Store,
  Text,
  Translated,
  cents,
  dateTime,
  endTimestamp,
  isDateOnly,
  lineParser,
  nameRows,
  optionalCents,
  optionalTimestamp,
  unique,
  validityWindow,
} from './fields.js';
export { lineKind } from './kind.js';
export { inLineTransaction } from './write.js';
// The feeds a supplier pushes (modules/integrations): the same formats, limited to its products.
export { productFeed, type ProductFeedScope } from './products.import.js';
export { stockLines } from './stock.js';
export { priceLines } from './prices.js';
export type { LineScope } from './line-scope.js';
// The job a campaign line queues to stamp its products for the data export (src/worker.ts runs it).
export { CAMPAIGN_STAMPS_JOB, campaignStampsHandler } from './campaigns.jobs.js';
