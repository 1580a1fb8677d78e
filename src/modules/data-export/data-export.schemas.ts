import { Type, type Static, type TSchema } from '@sinclair/typebox';

// The item shapes of the spec's "Data-export resources", field for field. Nullable fields say so
// with OpenAPI 3.0's `nullable` (which the serializer honours too), so the API document the
// partner generates a client from carries exactly these schemas.

/** A nullable value in OpenAPI 3.0 terms. */
const nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
/** A string enum as OpenAPI 3.0 spells it (`enum`, not `anyOf` of `const`s). */
const stringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description === undefined ? {} : { description }) });
const dateTime = (description: string) => Type.String({ format: 'date-time', description: `${description} (RFC 3339, UTC)` });

export const CategorySchema = Type.Object({
  code: Type.String(),
  level: Type.String({ description: 'Depth in the category tree, "1" at the root' }),
  name: Type.String({ description: 'Estonian name' }),
  webStore: Type.String({ description: 'Store code: WEB or WEB2' }),
});

export const ClientAccountSchema = Type.Object({
  client: Type.String({ description: 'Client code' }),
  gender: Type.String({ description: 'MALE, FEMALE or OTHER; an empty string when the client has not said' }),
  birthday: nullable(dateTime('Birthday at 00:00:00 UTC; null when not known')),
  created: dateTime('When the client account was created'),
  preferences: Type.Array(Type.String(), { description: 'Codes of the categories the client follows' }),
});

const Person = Type.Object({ name: Type.String(), code: Type.String() });

export const ProductSchema = Type.Object({
  code: Type.String(),
  type: Type.String({
    description: 'BOOK, EBOOK, AUDIOBOOK, GIFT_CARD, VIRTUAL_GIFT_CARD, OFFICE_EQUIPMENT, TECH, MUSIC, MOVIE, GAME or USED_BOOK',
  }),
  language: nullable(Type.String({ description: 'Language of the content, ISO 639-1 upper case' })),
  name: Type.String(),
  price: Type.Number({ description: 'Regular price for a guest, euros with VAT: the struck-through price when there is a discount' }),
  discountPrice: Type.Number({ description: 'What a guest pays, euros with VAT; equal to price without a discount' }),
  isDiscountedProduct: Type.Boolean({ description: 'Whether discountPrice is below price' }),
  description: nullable(Type.String()),
  stockCount: Type.Integer({ description: 'Stock that can be sold on the web' }),
  imageUrl: nullable(Type.String()),
  createdAt: dateTime('When the product was created'),
  updatedAt: dateTime('When the product last changed'),
  categories: Type.Array(Type.Object({ category: CategorySchema, parent: CategorySchema, root: CategorySchema }), {
    description: 'One entry per category the product is in, with its parent and root (a root is its own parent and root)',
  }),
  authors: Type.Array(Person, { description: 'Authors in their order' }),
  publisher: nullable(Person),
  webStores: Type.Array(Type.String(), { description: 'Stores that sell the product' }),
  physicalBook: nullable(Type.String({ description: 'Code of the physical edition of an e-book' })),
});

export const SalesHistorySchema = Type.Object({
  order: Type.String({ description: 'Order code' }),
  client: Type.String({ description: 'Client code' }),
  clientType: stringEnum(['PYSIKLIENT', 'ETTEVOTE'] as const, 'Private person or company'),
  createdAt: dateTime('When the order reached us from the back office'),
  createdNav: Type.Optional(dateTime('When the back office created the order; absent until the back office reports it')),
  sourceType: stringEnum(['ONLINE', 'OFFLINE'] as const, 'Web order or shop sale'),
  products: Type.Array(Type.String(), { description: 'Product codes of the order lines, in order' }),
  city: Type.String(),
  session: nullable(Type.String()),
  deliveryMethod: Type.String(),
  shop: nullable(Type.String({ description: 'Shop code (offline sales and shop pick-up)' })),
});

export const SessionActionSchema = Type.Object({
  session: Type.String(),
  webStore: Type.String(),
  product: Type.String({ description: 'Product code' }),
  client: Type.String({ description: 'Client code; an empty string for a guest' }),
  actionType: stringEnum(['VIEW', 'ADD_TO_WISHLIST', 'ADD_TO_BASKET'] as const),
  createdAt: dateTime('When the action happened'),
});

export const ShopSchema = Type.Object({
  code: Type.String(),
  name: Type.String({ description: 'Estonian name' }),
  city: Type.String(),
});

export type CategoryItem = Static<typeof CategorySchema>;
export type ClientAccountItem = Static<typeof ClientAccountSchema>;
export type ProductItem = Static<typeof ProductSchema>;
export type SalesHistoryItem = Static<typeof SalesHistorySchema>;
export type SessionActionItem = Static<typeof SessionActionSchema>;
export type ShopItem = Static<typeof ShopSchema>;

export const EXPORT_PAGING = { defaultPerPage: 100, maxPerPage: 1000 } as const;

// No `pattern` on the bounds: exportWindow (export-window.ts) checks them and its 400 shows the
// format with an example, where a pattern's was "createdFrom is invalid" for the likeliest mistake,
// an ISO 8601 time.

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'Page number, 1-based' })),
  'per-page': Type.Optional(Type.Integer({ minimum: 1, description: 'Items per page: 100 by default, at most 1000 (more is capped)' })),
});

const bound = (description: string, example: string) => Type.Optional(Type.String({ description, examples: [example] }));

const CreatedBounds = Type.Object({
  createdFrom: bound('Created at or after, `Y-m-d H:i:s` in UTC (inclusive)', '2026-11-01 00:00:00'),
  createdTo: bound('Created at or before, `Y-m-d H:i:s` in UTC (inclusive, to the end of that second)', '2026-11-30 23:59:59'),
});

const UpdatedBounds = Type.Object({
  updatedFrom: bound(
    'Last changed at or after, `Y-m-d H:i:s` in UTC (inclusive); with an update bound the items come in the order of their last change, then id',
    '2026-11-01 00:00:00',
  ),
  updatedTo: bound('Last changed at or before, `Y-m-d H:i:s` in UTC (inclusive, to the end of that second)', '2026-11-30 23:59:59'),
});

/** The query a collection takes, by its filters (ExportCollection.filters). */
export function exportQuery(filters: { created: boolean; updated: boolean }): TSchema {
  const parts = [...(filters.created ? [CreatedBounds] : []), ...(filters.updated ? [UpdatedBounds] : []), PageQuery];
  return parts.length === 1 ? PageQuery : Type.Composite(parts);
}

export type PageQuery = Static<typeof PageQuery>;
/** Every parameter any collection takes; each route validates only its own (exportQuery). */
export type WindowQuery = Static<typeof CreatedBounds> & Static<typeof UpdatedBounds> & PageQuery;
