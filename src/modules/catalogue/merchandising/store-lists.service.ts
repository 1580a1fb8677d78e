import type { MessageKey } from '../../../i18n/index.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import { notFound } from '../../../infra/domain-error.js';
import type { CatalogueContext } from '../catalogue.service.js';
import { audienceKey } from '../visibility.js';
import type { ByIdOrCode } from './store-list.repository.js';

// The store's curated lists (campaigns, product lists) as their routes read them: pages and single
// lists with their product counts, kept per store, language and audience for the cache period.
// Built once when the routes are registered (store-lists.routes.ts); the routes only call it.

const CACHE_ENTRIES = 2_000;

/** What one kind of list reads; `toWire` gives the answer's shape. */
export interface StoreListSource<Row extends { id: number }, Wire extends { id: number }> {
  notFound: MessageKey;
  /** A page of the lists the store shows, in display order, and how many there are. */
  page(context: CatalogueContext, offset: number, limit: number): Promise<{ rows: Row[]; total: number }>;
  /** The list if the store shows it (active, and for a campaign running now). */
  find(context: CatalogueContext, by: ByIdOrCode): Promise<Row | undefined>;
  /** How many products of each list the caller can see. */
  productCounts(context: CatalogueContext, ids: number[]): Promise<Map<number, number>>;
  toWire(row: Row, productCount: number): Wire;
}

export interface StoreListReader<Wire> {
  page(context: CatalogueContext, offset: number, perPage: number): Promise<{ items: Wire[]; total: number }>;
  /** The list if the store shows it; not-found otherwise (inactive, unknown, another store's, not running). */
  shown(context: CatalogueContext, by: ByIdOrCode): Promise<Wire>;
}

export function createStoreListReader<Row extends { id: number }, Wire extends { id: number }>(
  lists: StoreListSource<Row, Wire>,
  ttlMs: number,
): StoreListReader<Wire> {
  const pages = boundedCache<string, { items: Wire[]; total: number }>(ttlMs, CACHE_ENTRIES);
  const single = boundedCache<string, Wire | null>(ttlMs, CACHE_ENTRIES);
  const scopeKey = ({ store, language, caller }: CatalogueContext) => `${store.code}|${language}|${audienceKey(caller)}`;

  async function withCounts(context: CatalogueContext, rows: Row[]): Promise<Wire[]> {
    const counts = await lists.productCounts(
      context,
      rows.map((row) => row.id),
    );
    return rows.map((row) => lists.toWire(row, counts.get(row.id) ?? 0));
  }

  return {
    page: (context, offset, perPage) =>
      pages.get(`${scopeKey(context)}|${offset}|${perPage}`, async () => {
        const { rows, total } = await lists.page(context, offset, perPage);
        return { items: await withCounts(context, rows), total };
      }),
    async shown(context, by) {
      const key = `${scopeKey(context)}|${'id' in by ? `i${by.id}` : `c${by.code}`}`;
      const list = await single.get(key, async () => {
        const row = await lists.find(context, by);
        return row ? ((await withCounts(context, [row]))[0] ?? null) : null;
      });
      if (!list) throw notFound(lists.notFound, { id: 'id' in by ? by.id : by.code.slice(0, 40) });
      return list;
    },
  };
}
