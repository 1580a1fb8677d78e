// The catalogue's tables (migration 0800): products and what describes them, categories, shops and
// stock, campaigns, lists, company prices, reviews, quotes and preferences.
// Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';
// The type list is src/db/product-types.ts, a value the schemas and the import derive from.
import type { ProductTypeCode } from '../../db/product-types.js';

export type Availability = 'AVAILABLE' | 'AVAILABLE_IN_SHOP' | 'TEMPORARILY_OUT_OF_STOCK' | 'PERMANENTLY_OUT_OF_STOCK' | 'COMING_SOON';
export type DeliveryTime = 'INSTANT_DOWNLOAD' | 'DAYS_1_7' | 'WEEKS_2_4' | 'PREORDER';
export type PersonRole = 'AUTHOR' | 'ILLUSTRATOR' | 'TRANSLATOR' | 'READER' | 'EDITOR' | 'COMPILER';
export type AssetKind = 'IMAGE' | 'SAMPLE' | 'AUDIO_SAMPLE' | 'VIDEO';

export interface BindingTable {
  code: string;
  position: number;
}

export interface BindingNameTable {
  binding_code: string;
  language: string;
  name: string;
}

export interface PublisherTable {
  id: Generated<number>;
  code: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface SeriesTable {
  id: Generated<number>;
  code: string;
  name: string;
  publisher_id: number | null;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface PersonTable {
  id: Generated<number>;
  code: string;
  /** As the person is called, given names first ("A. H. Tammsaare"). */
  name: string;
  /** As the author index files them, surname first ("Tammsaare, A. H."): imported, or personSortName(name). */
  sort_name: string;
  description: string | null;
  image_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface ProductTable {
  id: Generated<number>;
  /** The back office's product code; imports upsert by it. */
  code: string;
  /** EAN-13 / ISBN-13 digits, no hyphens. */
  ean: string | null;
  type: ProductTypeCode;
  name: string;
  /** Alternative names (search tags), JSON array of strings. */
  alt_names: ColumnType<string, string | undefined, string>;
  description: string | null;
  /** Language of the content, upper-case ISO 639-1 (ET, EN, RU, DE, ...); null when not a text. */
  language: string | null;
  binding_code: string | null;
  year: number | null;
  pages: number | null;
  width_mm: number | null;
  height_mm: number | null;
  depth_mm: number | null;
  weight_g: number | null;
  publisher_id: number | null;
  series_id: number | null;
  series_number: number | null;
  /** For an e-book: its physical edition. */
  physical_book_id: number | null;
  /** VAT included. */
  shop_price_cents: number;
  /** The publisher's list price, VAT included; null or 0 when none. */
  original_price_cents: number | null;
  /** VAT excluded; null or 0 when none (the shop price less VAT applies). */
  wholesale_price_cents: number | null;
  vat_rate_percent: number;
  /** Shop price against the list price, whole percent; kept by the writers for the discount sort. */
  discount_percent: ColumnType<number, number | undefined, number>;
  availability: Availability;
  delivery_time: DeliveryTime | null;
  /** Stock that can be sold on the web: the sum over shops with web_stock. Kept by the stock import. */
  web_stock: ColumnType<number, number | undefined, number>;
  /** Units held by orders not yet handed to the back office (the orders module keeps it). */
  reserved_quantity: ColumnType<number, number | undefined, number>;
  /** The first IMAGE asset's URL, kept by the writers. */
  image_url: string | null;
  /** False once the back office no longer sells it (dropped from the feed): then shown nowhere. */
  is_active: BooleanColumn;
  /** Hidden from guests and retail customers. */
  hidden_web: BooleanColumn;
  /** Hidden from business and wholesale customers. */
  hidden_business: BooleanColumn;
  /** Units sold (recent period), from the back office: "top" lists and the sales sort. */
  sales_count: ColumnType<number, number | undefined, number>;
  rating_sum: ColumnType<number, number | undefined, number>;
  rating_count: ColumnType<number, number | undefined, number>;
  /** Publication date (Unix ms): "newest" and "new products". */
  released_at: number | null;
  /** The supplier whose feeds keep it (modules/integrations); null: the back office's. */
  supplier_id: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
  updated_at: number;
}

export interface ProductAltCodeTable {
  product_id: number;
  code: string;
}

export interface ProductStoreTable {
  product_id: number;
  store_code: string;
}

export interface ProductPersonTable {
  product_id: number;
  person_id: number;
  role: PersonRole;
  position: number;
}

export interface ProductAssetTable {
  id: Generated<number>;
  product_id: number;
  kind: AssetKind;
  url: string;
  mime_type: string | null;
  width: number | null;
  height: number | null;
  position: number;
}

export interface ProductRelatedTable {
  product_id: number;
  related_product_id: number;
  position: number;
}

export interface CategoryTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  parent_id: number | null;
  /** Depth in the tree, 1 at the root. */
  level: number;
  position: number;
  is_active: BooleanColumn;
  created_at: number;
  updated_at: number;
}

export interface CategoryNameTable {
  category_id: number;
  language: string;
  name: string;
  description: string | null;
}

export interface ProductCategoryTable {
  product_id: number;
  category_id: number;
}

/** A category of a store's shown tree and each category at or below it (migration 1550). */
export interface CategorySubtreeTable {
  ancestor_id: number;
  category_id: number;
  store_code: string;
}

/** What an audience sees in a category's subtree, in the default order (newest_key, product_id both descending). */
export interface CategoryListingTable {
  category_id: number;
  /** R: the public catalogue; B: the business one (visibility.ts, audienceKey). */
  audience: 'R' | 'B';
  /** released_at, or the smallest bigint when unknown (last in descending order). */
  newest_key: number;
  product_id: number;
}

export interface CategoryListingCountTable {
  category_id: number;
  audience: 'R' | 'B';
  products: number;
}

/** PostgreSQL: a change of a category's total not yet folded into its count (migration 2026_12_10_1010). */
export interface CategoryListingDeltaTable {
  category_id: number;
  audience: 'R' | 'B';
  delta: number;
  /** Its transaction's start (Unix ms; the column's default), for the backlog's age on /metrics (migration 2026_12_11_1610). */
  created_at: ColumnType<number, number | undefined, number>;
}

/** What an audience sees in a store (GET /product without a filter), in the default order (as CategoryListingTable). */
export interface StoreListingTable {
  store_code: string;
  audience: 'R' | 'B';
  newest_key: number;
  product_id: number;
}

export interface CategoryListingStateTable {
  id: number;
  /** Bumped by every change of the category tree. */
  version: number;
  /** The version category_subtree and category_listing were built from. */
  built_version: number;
}

/** Bumped by triggers whenever a kind of reference data changes: 'category' (category, category_name), 'binding' (binding_name). */
export interface CatalogueReferenceVersionTable {
  /** 'price': what basket lines are priced from (migration 2026_11_27_1300). */
  name: 'category' | 'binding' | 'price';
  version: number;
}

/** Each product_category row with the product's sales_count (kept by triggers): a category's best sellers from the top of its key. */
export interface CategorySalesTable {
  category_id: number;
  sales_count: number;
  product_id: number;
}

/** A product's page inputs from its child tables as one JSON text, kept by triggers (migration 2026_11_24_1600). */
export interface ProductDocumentTable {
  product_id: number;
  body: string;
}

export interface ShopTable {
  id: Generated<number>;
  code: string;
  city: string;
  address: string | null;
  phone: string | null;
  email: string | null;
  /** Whether this shop's stock counts as web stock. */
  web_stock: BooleanColumn;
  is_active: BooleanColumn;
  /** Whether shoppers see it as a shop (`/shop`, a product's shops, shop filters); a warehouse is not. */
  is_listed: ColumnType<boolean | number, boolean | undefined, boolean>;
  position: number;
  created_at: number;
  updated_at: number;
}

export interface ShopNameTable {
  shop_id: number;
  language: string;
  name: string;
  opening_hours: string | null;
}

export interface ShopStockTable {
  product_id: number;
  shop_id: number;
  quantity: number;
  updated_at: number;
}

export interface CampaignTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  /** Unix ms, inclusive; null: open. */
  valid_from: number | null;
  /** Unix ms, exclusive; null: open. */
  valid_to: number | null;
  is_active: BooleanColumn;
  position: number;
  image_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface CampaignNameTable {
  campaign_id: number;
  language: string;
  name: string;
  description: string | null;
}

export interface CampaignPriceTable {
  campaign_id: number;
  product_id: number;
  customer_kind: 'RETAIL' | 'BUSINESS';
  price_cents: number;
  position: number;
}

export interface ProductListTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  is_active: BooleanColumn;
  position: number;
  created_at: number;
  updated_at: number;
}

export interface ProductListNameTable {
  product_list_id: number;
  language: string;
  name: string;
}

export interface ProductListItemTable {
  product_list_id: number;
  product_id: number;
  position: number;
}

export interface CompanyProductPriceTable {
  company_id: number;
  product_id: number;
  /** VAT excluded. */
  price_cents: number;
}

export interface ProductCommentTable {
  id: Generated<number>;
  product_id: number;
  client_account_id: number;
  author_name: string;
  body: string;
  language: string;
  created_at: number;
  /** What was submitted (product, text, rating) hashed, to find a repeated submit (migration 0620); null on earlier rows. */
  submission_hash: string | null;
}

export interface ProductRatingTable {
  product_id: number;
  client_account_id: number;
  /** 1 to 5. */
  rating: number;
  created_at: number;
  updated_at: number;
}

export interface QuoteTable {
  id: Generated<number>;
  code: string;
  product_id: number | null;
  person_id: number | null;
  language: string;
  text: string;
  created_at: number;
}

export interface ClientCategoryPreferenceTable {
  client_account_id: number;
  category_id: number;
  created_at: number;
}

export interface CatalogueTables {
  binding: BindingTable;
  binding_name: BindingNameTable;
  publisher: PublisherTable;
  series: SeriesTable;
  person: PersonTable;
  product: ProductTable;
  product_alt_code: ProductAltCodeTable;
  product_store: ProductStoreTable;
  product_person: ProductPersonTable;
  product_asset: ProductAssetTable;
  product_related: ProductRelatedTable;
  category: CategoryTable;
  category_name: CategoryNameTable;
  product_category: ProductCategoryTable;
  category_subtree: CategorySubtreeTable;
  category_listing: CategoryListingTable;
  category_listing_count: CategoryListingCountTable;
  category_listing_delta: CategoryListingDeltaTable;
  category_listing_state: CategoryListingStateTable;
  store_listing: StoreListingTable;
  catalogue_reference_version: CatalogueReferenceVersionTable;
  category_sales: CategorySalesTable;
  product_document: ProductDocumentTable;
  shop: ShopTable;
  shop_name: ShopNameTable;
  shop_stock: ShopStockTable;
  campaign: CampaignTable;
  campaign_name: CampaignNameTable;
  campaign_price: CampaignPriceTable;
  product_list: ProductListTable;
  product_list_name: ProductListNameTable;
  product_list_item: ProductListItemTable;
  company_product_price: CompanyProductPriceTable;
  product_comment: ProductCommentTable;
  product_rating: ProductRatingTable;
  quote: QuoteTable;
  client_category_preference: ClientCategoryPreferenceTable;
}
