import type { FastifyRequest } from 'fastify';
import { browseFilter, type Catalogue } from '../catalogue/catalogue.service.js';
import { parseQuery } from './query-text.js';
import { LIST_PARAMETERS, type SearchFilterQuery } from './search.schemas.js';
import type { SearchSort } from './search-query.js';
import type { SearchInput } from './search.service.js';

/** Comma-separated list parameters become lists before validation: `type=BOOK,EBOOK` is `type=BOOK&type=EBOOK`. */
export async function splitListParameters(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  for (const name of LIST_PARAMETERS) {
    const value = query[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    query[name] = values.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])).filter((item) => item !== '');
  }
}

/** The search the query asks for: text, filters (a category with its subcategories) and order. */
export async function searchInput(catalogue: Catalogue, request: FastifyRequest, query: SearchFilterQuery, sort: SearchSort = 'relevance'): Promise<SearchInput> {
  const cents = (euros: number | undefined) => (euros === undefined ? undefined : Math.round(euros * 100));
  const filter = {
    ...(await browseFilter(catalogue, request, query)),
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
