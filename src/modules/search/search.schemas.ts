import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { errors, storeRouteErrors } from '../../http/schemas.js';
import { literals, ProductCardSchema, ProductTypeSchema } from '../catalogue/index.js';
import { AVAILABILITY_FILTERS, LANGUAGE_GROUPS, NEW_PRODUCT_DAYS, SEARCH_SORTS } from './search-query.js';

// Query and answer shapes of search, autocomplete and dynamic filters. List parameters take a
// value per repetition (`type=BOOK&type=EBOOK`) or a comma-separated list (`type=BOOK,EBOOK`).

const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, ...(description ? { description } : {}) });
const list = <T extends ReturnType<typeof Type.String> | ReturnType<typeof literals>>(item: T, maxItems: number, description: string) =>
  Type.Optional(Type.Array(item, { maxItems, description }));
const Euros = (description: string) => Type.Number({ minimum: 0, maximum: 10_000_000, description });

/** Parameters whose values may also come comma-separated. */
export const LIST_PARAMETERS = ['type', 'binding', 'language', 'availability', 'shop'] as const;

export const SearchFilterQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      description:
        'Free text over title, alternative names, persons, publisher and series; case and diacritics do not matter ("tode" finds "Tõde"); ' +
        'the last word matches as a prefix while it is being typed. An EAN or ISBN (hyphens and spaces allowed) finds exactly that product. Cut to 200 characters.',
    }),
  ),
  categoryId: Type.Optional(Id('A category of the store; its subcategories included')),
  personId: Type.Optional(Id()),
  publisherId: Type.Optional(Id()),
  seriesId: Type.Optional(Id()),
  productListId: Type.Optional(Id()),
  campaignId: Type.Optional(Id()),
  type: list(ProductTypeSchema, 20, 'Product types (any of them)'),
  binding: list(Type.String({ pattern: '^[A-Za-z0-9_]{1,32}$' }), 20, 'Binding codes, e.g. HARDCOVER (any of them)'),
  language: list(literals(LANGUAGE_GROUPS), 10, 'Languages of the content: ET, EN, RU, or OTHER for any other (any of them)'),
  priceMin: Type.Optional(Euros('Lowest price for the caller, in euros')),
  priceMax: Type.Optional(Euros('Highest price for the caller, in euros')),
  minDiscount: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        "Least discount the caller's cards show, in percent (business and wholesale customers, whose cards show none: the list-price discount)",
    }),
  ),
  availability: list(
    literals(AVAILABILITY_FILTERS),
    10,
    'web: can be ordered on the web; shop: in stock in a shop; soon: coming soon (any of them)',
  ),
  shop: list(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,40}$' }), 50, 'In stock in one of these shops (shop codes)'),
  preorder: Type.Optional(Type.Boolean({ description: 'Only products that can be preordered' })),
  new: Type.Optional(Type.Boolean({ description: `Only products released in the last ${NEW_PRODUCT_DAYS} days` })),
});
export type SearchFilterQuery = Static<typeof SearchFilterQuery>;

export const SearchQuery = Type.Object({
  ...PagingQuery.properties,
  ...SearchFilterQuery.properties,
  sort: Type.Optional(
    literals(
      SEARCH_SORTS,
      'relevance (default: title matches first, out of stock last), price, -price, discount (as minDiscount takes it, largest first, equal ones by id, newest first), name, newest, sales',
    ),
  ),
});
export type SearchQuery = Static<typeof SearchQuery>;

const Limit = (fallback: number, maximum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum, default: fallback, description }));

export const AutocompleteQuery = Type.Object({
  term: Type.String({ description: 'What the shopper has typed so far; an EAN or ISBN returns only that product. Cut to 200 characters.' }),
  productLimit: Limit(6, 20, 'Products to suggest'),
  personLimit: Limit(4, 20, 'Persons to suggest'),
  publisherLimit: Limit(3, 20, 'Publishers to suggest'),
  seriesLimit: Limit(3, 20, 'Series to suggest'),
  categoryLimit: Limit(3, 20, 'Categories to suggest'),
});
export type AutocompleteQuery = Static<typeof AutocompleteQuery>;

export const FacetsQuery = Type.Object({
  ...SearchFilterQuery.properties,
  facetLimit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Values per facet for persons, publishers and series' }),
  ),
});
export type FacetsQuery = Static<typeof FacetsQuery>;

export const FacetSearchQuery = Type.Object({
  ...SearchFilterQuery.properties,
  term: Type.String({ description: 'Part of the name to look for within the facet' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
});
export type FacetSearchQuery = Static<typeof FacetSearchQuery>;

export const NamedRefSchema = Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() });
const CategoryRef = {
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  level: Type.Integer(),
  parentId: Type.Union([Type.Integer(), Type.Null()]),
};
const Counted = { count: Type.Integer({ description: 'Products the search finds with this value' }) };
export const NamedCountSchema = Type.Object({ ...NamedRefSchema.properties, ...Counted });

export const AutocompleteSchema = Type.Object({
  products: Type.Array(ProductCardSchema),
  persons: Type.Array(NamedRefSchema),
  publishers: Type.Array(NamedRefSchema),
  series: Type.Array(NamedRefSchema),
  categories: Type.Array(Type.Object(CategoryRef)),
});

export const FacetsSchema = Type.Object({
  total: Type.Integer({ description: 'Products the search finds' }),
  capped: Type.Boolean({ description: 'True when the search finds so many products that the counts cover only the first 20,000' }),
  categories: Type.Array(Type.Object({ ...CategoryRef, ...Counted }), {
    description: 'The subcategories of categoryId (the top categories without it), each counted with its own subcategories',
  }),
  persons: Type.Array(NamedCountSchema),
  bindings: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), ...Counted })),
  publishers: Type.Array(NamedCountSchema),
  series: Type.Array(NamedCountSchema),
  languages: Type.Array(Type.Object({ code: Type.String({ description: 'ET, EN, RU or OTHER' }), ...Counted })),
  types: Type.Array(Type.Object({ code: ProductTypeSchema, ...Counted })),
  price: Type.Union([Type.Object({ min: Type.Number(), max: Type.Number() }), Type.Null()], {
    description: 'Price range for the caller, in euros',
  }),
});

/** Response header of every search-backed answer: 1 here, 0 on the 503 while the index is unavailable. */
export const searchHeaders = {
  'x-search-available': { type: 'string', description: '1: the search index answered; 0 (with 503): it is being rebuilt' },
};
/** 429: past the address's work limit (search-guards.routes.ts), on every route of the group. */
export const searchErrors = errors(...storeRouteErrors, 401, 429, 503);

/** Adds X-Search-Available to a success schema's documented headers. */
export function withSearchHeader<T extends object>(schema: T): T {
  const headers = (schema as { headers?: object }).headers ?? {};
  return { ...schema, headers: { ...headers, ...searchHeaders } };
}
