import { Type, type Static } from '@sinclair/typebox';
import { PRODUCT_TYPES } from '../../db/product-types.js';
import { PagingQuery } from '../../http/paging.js';
import { PRODUCT_SORTS } from './product-query.js';

// Wire shapes shared by the catalogue routes. Money is a number in euros with two decimals.

export const AVAILABILITIES = [
  'AVAILABLE',
  'AVAILABLE_IN_SHOP',
  'TEMPORARILY_OUT_OF_STOCK',
  'PERMANENTLY_OUT_OF_STOCK',
  'COMING_SOON',
] as const;
export const DELIVERY_TIMES = ['INSTANT_DOWNLOAD', 'DAYS_1_7', 'WEEKS_2_4', 'PREORDER'] as const;
export const PERSON_ROLES = ['AUTHOR', 'ILLUSTRATOR', 'TRANSLATOR', 'READER', 'EDITOR', 'COMPILER'] as const;

/** One of the values, as a plain string enum (validation, /docs and the static type agree). */
export const literals = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description === undefined ? {} : { description }) });

export const ProductTypeSchema = literals(PRODUCT_TYPES, 'Product type');
export const PersonRoleSchema = literals(PERSON_ROLES, 'Role of a person in a product');

/** An internal id: a positive whole number within what both engines and JSON hold exactly. */
export const Id = (description = 'Internal id') => Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description });

export const IdParams = Type.Object({ id: Id() });
export type IdParams = Static<typeof IdParams>;

export const PersonRefSchema = Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() });
export const NamedRefSchema = Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() });

export const PriceFields = {
  price: Type.Number({ description: 'What the caller pays, in euros (VAT included unless vatIncluded is false)' }),
  strikeThroughPrice: Type.Union([Type.Number(), Type.Null()], { description: 'The regular price shown struck through; retail only' }),
  discountPercent: Type.Integer({ description: 'Against the strike-through price; 0 without one' }),
  vatIncluded: Type.Boolean({ description: 'False for wholesale prices' }),
};

export const ProductCardSchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String({ description: 'Product code of the back office' }),
    name: Type.String(),
    type: ProductTypeSchema,
    language: Type.Union([Type.String(), Type.Null()], { description: 'Language of the content: ET, EN, RU, ...' }),
    binding: Type.Union([Type.Object({ code: Type.String(), name: Type.String() }), Type.Null()]),
    year: Type.Union([Type.Integer(), Type.Null()]),
    imageUrl: Type.Union([Type.String(), Type.Null()]),
    authors: Type.Array(PersonRefSchema),
    ...PriceFields,
    availability: literals(AVAILABILITIES),
    deliveryTime: Type.Union([literals(DELIVERY_TIMES), Type.Null()]),
    stockCount: Type.Integer({ description: 'Units that can be sold on the web' }),
    rating: Type.Object({ average: Type.Union([Type.Number(), Type.Null()]), count: Type.Integer() }),
    releaseDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
  },
  { $id: 'ProductCard', description: 'A product as lists show it, priced for the caller' },
);

export const ShopAvailabilitySchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  city: Type.String(),
  address: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer(),
});

export const ProductDetailsSchema = Type.Object(
  {
    ...ProductCardSchema.properties,
    ean: Type.Union([Type.String(), Type.Null()], { description: 'EAN-13 / ISBN-13' }),
    altCodes: Type.Array(Type.String(), { description: 'Other EAN/ISBN codes of the product' }),
    altNames: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    pages: Type.Union([Type.Integer(), Type.Null()]),
    dimensions: Type.Union([
      Type.Object({
        widthMm: Type.Union([Type.Integer(), Type.Null()]),
        heightMm: Type.Union([Type.Integer(), Type.Null()]),
        depthMm: Type.Union([Type.Integer(), Type.Null()]),
      }),
      Type.Null(),
    ]),
    weightG: Type.Union([Type.Integer(), Type.Null()]),
    vatRatePercent: Type.Number(),
    publisher: Type.Union([NamedRefSchema, Type.Null()]),
    series: Type.Union([Type.Object({ ...NamedRefSchema.properties, number: Type.Union([Type.Integer(), Type.Null()]) }), Type.Null()]),
    persons: Type.Array(Type.Object({ ...PersonRefSchema.properties, role: PersonRoleSchema })),
    categories: Type.Array(
      Type.Object({
        id: Type.Integer(),
        code: Type.String(),
        name: Type.String(),
        level: Type.Integer(),
        parentId: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
    images: Type.Array(
      Type.Object({
        url: Type.String(),
        width: Type.Union([Type.Integer(), Type.Null()]),
        height: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
    physicalBook: Type.Union([NamedRefSchema, Type.Null()], { description: 'For an e-book: its physical edition' }),
    ebook: Type.Union([NamedRefSchema, Type.Null()], { description: 'For a physical book: its e-book edition' }),
    availabilityByShop: Type.Array(ShopAvailabilitySchema, { description: 'Stock in each shop that has the product' }),
  },
  { $id: 'ProductDetails', description: 'A product with everything the product page shows' },
);

export const SortQuery = Type.Optional(
  literals(
    PRODUCT_SORTS,
    'Order: newest (default), price and -price (the price the cards show the caller: store, client and company discounts, running campaign prices, wholesale and company prices; equal prices by id), name, discount (the discount the cards show a guest or retail customer, largest first, equal ones by id, newest first; business and wholesale customers: the list-price discount), sales, position (lists and campaigns), seriesNumber',
  ),
);

export const ProductListQuery = Type.Object({
  ...PagingQuery.properties,
  categoryId: Type.Optional(Id('A category of the store; its subcategories included')),
  personId: Type.Optional(Id('Products with this person in any role')),
  publisherId: Type.Optional(Id()),
  seriesId: Type.Optional(Id()),
  productListId: Type.Optional(Id('An active product list of the store')),
  campaignId: Type.Optional(Id('A campaign of the store running now')),
  type: Type.Optional(ProductTypeSchema),
  sort: SortQuery,
});
export type ProductListQuery = Static<typeof ProductListQuery>;

/** `page`, `per-page` and `sort`, for the lists below a category, person, publisher, ... */
export const SortedPagingQuery = Type.Object({ ...PagingQuery.properties, sort: SortQuery });
export type SortedPagingQuery = Static<typeof SortedPagingQuery>;
