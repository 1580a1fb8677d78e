import type { DatabaseHandle } from '../../../db/database.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import { notFound } from '../../../infra/domain-error.js';
import { findPerson } from '../browse/person.repository.js';
import type { CatalogueConfig } from '../catalogue.config.js';
import type { Catalogue, CatalogueContext, ListSlice } from '../catalogue.service.js';
import { audienceKey } from '../visibility.js';
import { countQuotes, quotePage, type QuoteFilter, type QuoteRow } from './quote.repository.js';

const CACHE_ENTRIES = 20_000;

export interface QuoteQuery {
  productId?: number;
  personId?: number;
  /** A language code, 'all', or undefined: the reader's language, or every language when it has none. */
  language?: string;
}

/** One page of the quotes asked for and how many there are; not found for a product the caller cannot see or an unknown person. */
export type ListQuotes = (context: CatalogueContext, query: QuoteQuery, slice: ListSlice) => Promise<{ rows: QuoteRow[]; total: number }>;

export interface QuoteDeps {
  database: DatabaseHandle;
  config: CatalogueConfig;
  catalogue: Catalogue;
}

/** Product quotes: all of them, or a product's or a person's; in the reader's language when there are any. */
export function createQuoteList({ database, config, catalogue }: QuoteDeps): ListQuotes {
  const db = database.db;
  const ttl = config.catalogueCacheTtlMs;
  const persons = boundedCache<number, { id: number } | null>(ttl, CACHE_ENTRIES);
  // Counts and pages are kept per filter like the other catalogue lists: the count checks every
  // quote's product for visibility.
  const counts = boundedCache<string, number>(ttl, CACHE_ENTRIES);
  const pages = boundedCache<string, QuoteRow[]>(ttl, CACHE_ENTRIES);
  const keyOf = (filter: QuoteFilter) =>
    JSON.stringify([
      filter.storeCode,
      audienceKey(filter.caller),
      filter.productId ?? null,
      filter.personId ?? null,
      filter.language ?? null,
    ]);
  const countOf = (filter: QuoteFilter) => counts.get(keyOf(filter), () => countQuotes(db, filter));

  return async (context, query, slice) => {
    const { caller } = context;
    if (query.productId !== undefined && !(await catalogue.visibleBase(context, query.productId))) {
      throw notFound('catalogue.productNotFound', { id: query.productId });
    }
    if (query.personId !== undefined) {
      const personId = query.personId;
      if (!(await persons.get(personId, async () => (await findPerson(db, personId)) ?? null)))
        throw notFound('catalogue.personNotFound', { id: personId });
    }
    let filter: QuoteFilter = {
      storeCode: context.store.code,
      caller,
      productId: query.productId,
      personId: query.personId,
      language: query.language === 'all' ? undefined : (query.language ?? context.language),
    };
    let total = await countOf(filter);
    // A product page in English still shows the book's Estonian quotes rather than none at all.
    if (total === 0 && query.language === undefined) {
      filter = { ...filter, language: undefined };
      total = await countOf(filter);
    }
    const rows =
      total > slice.offset
        ? await pages.get(`${keyOf(filter)}|${slice.offset}|${slice.perPage}`, () => quotePage(db, filter, slice.offset, slice.perPage))
        : [];
    return { rows, total };
  };
}
