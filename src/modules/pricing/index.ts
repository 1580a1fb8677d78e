// Pricing's public surface: what a caller pays for a product, in TypeScript (pricing.ts, for the
// cards and exports) and as SQL (caller-price.sql.ts, for search filters and sorts, and deep pages of lists sorted by price). One owner
// for both forms; test/pricing checks they agree.
export {
  campaignRunsAt,
  isGiftCard,
  priceFor,
  showsDiscounts,
  toWireMoney,
  type CampaignPrice,
  type Customer,
  type CustomerKind,
  type Price,
  type PriceSource,
  type PricedProduct,
  type ProductType,
  type StoreDiscounts,
} from './pricing.js';
export {
  callerPriceSql,
  leastFor,
  pricingKey,
  type CampaignPriceRead,
  type LeastFunction,
  type PriceJoin,
  type PriceScope,
  type PriceSql,
  type PricedTable,
  type PricingCaller,
} from './caller-price.sql.js';
