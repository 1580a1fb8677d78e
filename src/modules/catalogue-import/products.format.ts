import { Type, type Static } from '@sinclair/typebox';
import type { Insertable } from 'kysely';
import { PRODUCT_TYPES } from '../../db/product-types.js';
import type { ProductTypeCode } from '../../db/schema.js';
import type { AssetKind, Availability, DeliveryTime, PersonRole, ProductAssetTable, ProductTable } from '../catalogue/index.js';
import {
  Code,
  DateValue,
  LineError,
  Money,
  Name,
  Store,
  Text,
  barcode,
  calendarDate,
  cents,
  lineParser,
  mainBarcode,
  optionalCents,
  unique,
} from './fields.js';

// One line of the product feed, and its conversion into column values. References stay codes
// here; products.import.ts resolves them.

const TYPES: ProductTypeCode[] = [...PRODUCT_TYPES];
const AVAILABILITY: Availability[] = [
  'AVAILABLE',
  'AVAILABLE_IN_SHOP',
  'TEMPORARILY_OUT_OF_STOCK',
  'PERMANENTLY_OUT_OF_STOCK',
  'COMING_SOON',
];
const DELIVERY: DeliveryTime[] = ['INSTANT_DOWNLOAD', 'DAYS_1_7', 'WEEKS_2_4', 'PREORDER'];
const ROLES: PersonRole[] = ['AUTHOR', 'ILLUSTRATOR', 'TRANSLATOR', 'READER', 'EDITOR', 'COMPILER'];
const ASSET_KINDS: AssetKind[] = ['IMAGE', 'SAMPLE', 'AUDIO_SAMPLE', 'VIDEO'];

const oneOf = <T extends string>(values: T[]) => Type.Union(values.map((value) => Type.Literal(value)));
const nullable = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Count = (maximum: number) => Type.Integer({ minimum: 0, maximum });
const Url = Type.String({ maxLength: 1000, pattern: '^https?://\\S+$' });

export const ProductLine = Type.Object(
  {
    code: Code(),
    ean: nullable(Type.String({ maxLength: 40 })),
    altCodes: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 50 })),
    type: oneOf(TYPES),
    name: Name(500),
    altNames: Type.Optional(Type.Array(Name(200), { maxItems: 50 })),
    description: nullable(Text(100_000)),
    language: nullable(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    binding: nullable(Type.String({ maxLength: 32 })),
    year: nullable(Type.Integer({ minimum: 1, maximum: 9999 })),
    pages: nullable(Count(1_000_000)),
    widthMm: nullable(Count(100_000)),
    heightMm: nullable(Count(100_000)),
    depthMm: nullable(Count(100_000)),
    weightG: nullable(Count(10_000_000)),
    publisher: nullable(Code('publisher code')),
    series: nullable(Code('series code')),
    seriesNumber: nullable(Count(1_000_000)),
    physicalBook: nullable(Code('product code of the physical edition')),
    persons: Type.Optional(
      Type.Array(Type.Object({ code: Code('person code'), role: oneOf(ROLES) }, { additionalProperties: false }), { maxItems: 100 }),
    ),
    categories: Type.Optional(Type.Array(Code('category code'), { maxItems: 100 })),
    stores: Type.Array(Store, { maxItems: 2 }),
    related: Type.Optional(Type.Array(Code('product code'), { maxItems: 100 })),
    assets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            kind: oneOf(ASSET_KINDS),
            url: Url,
            mimeType: nullable(Type.String({ maxLength: 100 })),
            width: nullable(Count(100_000)),
            height: nullable(Count(100_000)),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
    shopPrice: Money,
    originalPrice: nullable(Money),
    wholesalePrice: nullable(Money),
    vatRate: Type.Number({ minimum: 0, maximum: 100 }),
    availability: oneOf(AVAILABILITY),
    deliveryTime: nullable(oneOf(DELIVERY)),
    hiddenWeb: Type.Optional(Type.Boolean()),
    hiddenBusiness: Type.Optional(Type.Boolean()),
    salesCount: Type.Optional(Count(2_000_000_000)),
    releasedAt: nullable(DateValue),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
type ProductLine = Static<typeof ProductLine>;

/**
 * The product's own columns as the line gives them: all but the references (resolved from codes
 * in products.import.ts), the columns other writers keep (web stock, image, ratings, sales) and
 * the bookkeeping ones.
 */
export type ProductColumns = Required<
  Omit<
    Insertable<ProductTable>,
    | 'id'
    | 'code'
    | 'publisher_id'
    | 'series_id'
    | 'physical_book_id'
    | 'supplier_id'
    | 'discount_percent'
    | 'web_stock'
    | 'reserved_quantity'
    | 'image_url'
    | 'sales_count'
    | 'rating_sum'
    | 'rating_count'
    | 'created_at'
    | 'updated_at'
  >
>;

export type Asset = Required<Omit<Insertable<ProductAssetTable>, 'id' | 'product_id' | 'position'>>;

export interface ProductRecord {
  code: string;
  columns: ProductColumns;
  /** Kept as stored when the line does not give it. */
  salesCount: number | undefined;
  publisher: string | null;
  series: string | null;
  physicalBook: string | null;
  persons: Array<{ code: string; role: PersonRole }>;
  categories: string[];
  stores: string[];
  related: string[];
  altCodes: string[];
  assets: Asset[];
}

/** The types that may name their physical edition (physicalBook), which must be a BOOK (products.import.ts). */
const DIGITAL_EDITIONS: readonly ProductTypeCode[] = ['EBOOK', 'AUDIOBOOK'];
export const PHYSICAL_EDITION: ProductTypeCode = 'BOOK';

function convert(line: ProductLine): ProductRecord {
  const altCodes = (line.altCodes ?? []).map((code, index) => barcode(code, `altCodes/${index}`));
  unique(line.stores, 'stores');
  unique(line.categories ?? [], 'categories');
  unique(line.related ?? [], 'related');
  unique(
    (line.persons ?? []).map((person) => `${person.code} as ${person.role}`),
    'persons',
  );
  if (line.related?.includes(line.code)) throw new LineError('/related: a product cannot be related to itself');
  if (line.physicalBook === line.code) throw new LineError('/physicalBook: a product cannot be its own physical edition');
  if (line.physicalBook && !DIGITAL_EDITIONS.includes(line.type))
    throw new LineError(`/physicalBook: only an e-book or an audiobook has a physical edition, not a product of type ${line.type}`);
  if (line.seriesNumber !== undefined && line.seriesNumber !== null && !line.series)
    throw new LineError('/seriesNumber: given without a series');
  return {
    code: line.code,
    columns: {
      ean: line.ean === null || line.ean === undefined ? null : mainBarcode(line.ean, 'ean'),
      type: line.type,
      name: line.name,
      alt_names: JSON.stringify(line.altNames ?? []),
      description: line.description ?? null,
      language: line.language ? line.language.toUpperCase() : null,
      binding_code: line.binding ?? null,
      year: line.year ?? null,
      pages: line.pages ?? null,
      width_mm: line.widthMm ?? null,
      height_mm: line.heightMm ?? null,
      depth_mm: line.depthMm ?? null,
      weight_g: line.weightG ?? null,
      series_number: line.seriesNumber ?? null,
      shop_price_cents: cents(line.shopPrice, 'shopPrice'),
      original_price_cents: optionalCents(line.originalPrice, 'originalPrice'),
      wholesale_price_cents: optionalCents(line.wholesalePrice, 'wholesalePrice'),
      vat_rate_percent: line.vatRate,
      availability: line.availability,
      delivery_time: line.deliveryTime ?? null,
      is_active: line.active ?? true,
      hidden_web: line.hiddenWeb ?? false,
      hidden_business: line.hiddenBusiness ?? false,
      released_at: calendarDate(line.releasedAt, 'releasedAt'),
    },
    salesCount: line.salesCount,
    publisher: line.publisher ?? null,
    series: line.series ?? null,
    physicalBook: line.physicalBook ?? null,
    persons: line.persons ?? [],
    categories: line.categories ?? [],
    stores: line.stores,
    related: line.related ?? [],
    altCodes: [...new Set(altCodes)],
    assets: (line.assets ?? []).map((asset) => ({
      kind: asset.kind,
      url: asset.url,
      mime_type: asset.mimeType ?? null,
      width: asset.width ?? null,
      height: asset.height ?? null,
    })),
  };
}

export const parseProductLine = lineParser(ProductLine, convert);
