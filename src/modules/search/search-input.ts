import { browseFilter, type Catalogue, type CatalogueContext } from '../catalogue/index.js';
import { parseQuery } from './query-text.js';
import type { SearchFilterQuery } from './search.schemas.js';
import type { SearchSort } from './search-query.js';
import type { SearchInput } from './search.service.js';

/** The search the query asks for: text, filters (a category with its subcategories) and order. */
export async function searchInput(
  catalogue: Catalogue,
  context: Pick<CatalogueContext, 'store' | 'language' | 'now'>,
  query: SearchFilterQuery,
  sort: SearchSort = 'relevance',
): Promise<SearchInput> {
  const cents = (euros: number | undefined) => (euros === undefined ? undefined : Math.round(euros * 100));
  const filter = {
    ...(await browseFilter(catalogue, context, query)),
    types: sortedUnique(query.type),
    bindings: sortedUnique(query.binding?.map((code) => code.toUpperCase())),
    languages: sortedUnique(query.language),
    priceMinCents: cents(query.priceMin),
    priceMaxCents: cents(query.priceMax),
    minDiscount: query.minDiscount,
    availability: sortedUnique(query.availability),
    shopCodes: sortedUnique(query.shop),
    preorder: query.preorder || undefined,
    newOnly: query.new || undefined,
  };
  // Absent filters leave the object (and so the cache key) alone.
  for (const key of Object.keys(filter) as Array<keyof typeof filter>) if (filter[key] === undefined) delete filter[key];
  return { text: parseQuery(query.q), filter, sort };
}

function sortedUnique<T extends string>(values: T[] | undefined): T[] | undefined {
  return values === undefined || values.length === 0 ? undefined : [...new Set(values)].sort();
}
