import type { Selectable } from 'kysely';
import type { ProductTypeCode } from '../../../db/schema.js';
import type { Availability, CampaignPriceTable, CampaignTable, DeliveryTime, ProductTable } from '../catalogue.tables.js';
import type { BoundedCache } from '../../../infra/bounded-cache.js';
import type { PricedProduct, StoreDiscounts } from '../../pricing/index.js';
import type { Caller } from '../caller.js';

/**
 * What every product list shows of a product, priced for the caller. The parts that do not depend
 * on the caller (ProductBase) are read in one batch per page and kept per store for the cache
 * period; the price is worked out per request from them.
 */
export interface ProductBase {
  id: number;
  code: string;
  name: string;
  type: ProductTypeCode;
  language: string | null;
  bindingCode: string | null;
  year: number | null;
  imageUrl: string | null;
  availability: Availability;
  deliveryTime: DeliveryTime | null;
  /** Units the web can still sell: the web stock less what orders not yet handed over hold (product.reserved_quantity). */
  webStock: number;
  ratingSum: number;
  ratingCount: number;
  releasedAt: number | null;
  isActive: boolean;
  hiddenWeb: boolean;
  hiddenBusiness: boolean;
  /** Whether the product is in this store's assortment. */
  inStore: boolean;
  pricing: PricedProduct;
  authors: PersonRef[];
}

export interface PersonRef {
  id: number;
  code: string;
  name: string;
}

export interface ProductCard {
  id: number;
  code: string;
  name: string;
  type: ProductTypeCode;
  language: string | null;
  binding: { code: string; name: string } | null;
  year: number | null;
  imageUrl: string | null;
  authors: PersonRef[];
  price: number;
  strikeThroughPrice: number | null;
  discountPercent: number;
  vatIncluded: boolean;
  availability: Availability;
  deliveryTime: DeliveryTime | null;
  stockCount: number;
  rating: { average: number | null; count: number };
  releaseDate: string | null;
}

/** One store's bases by product id; null for an id with no product (kept too, so a miss is not read again). */
export type BaseCache = BoundedCache<number, ProductBase | null>;

export type BaseReader = (storeCode: string, ids: readonly number[]) => Promise<Map<number, ProductBase>>;

/** What pricing a card needs beside the product. */
export interface PriceContext {
  caller: Caller;
  store: StoreDiscounts;
  now: number;
  /** The caller's company prices, by product id (wholesale only). */
  companyPrices: Map<number, number>;
}

export const PRODUCT_BASE_COLUMNS = [
  'id',
  'code',
  'name',
  'type',
  'language',
  'binding_code',
  'year',
  'image_url',
  'availability',
  'delivery_time',
  'web_stock',
  'rating_sum',
  'rating_count',
  'released_at',
  'is_active',
  'hidden_web',
  'hidden_business',
  'shop_price_cents',
  'original_price_cents',
  'wholesale_price_cents',
  'vat_rate_percent',
  'reserved_quantity',
] as const;

/** The rows one read of bases gives: products, which of them the store sells, their authors and campaign prices. */
export interface BaseRows {
  products: Array<Pick<Selectable<ProductTable>, (typeof PRODUCT_BASE_COLUMNS)[number]>>;
  inStore: Array<{ product_id: number }>;
  authors: Array<{ product_id: number; id: number; code: string; name: string }>;
  campaigns: Array<
    Pick<Selectable<CampaignPriceTable>, 'product_id' | 'customer_kind' | 'price_cents'> &
      Pick<Selectable<CampaignTable>, 'valid_from' | 'valid_to'>
  >;
}
