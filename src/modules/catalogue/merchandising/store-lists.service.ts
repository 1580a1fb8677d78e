import type { MessageKey } from '../../../i18n/index.js';
import { boundedCache, type BoundedCache } from '../../../infra/bounded-cache.js';
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
  /**
   * The first instant after the context's time at which the lists the store shows may change by
   * themselves (a campaign starts or ends); none given: Infinity, they change only when edited.
   */
  changesAt?(context: CatalogueContext): Promise<number>;
}

/** An answer and the first instant after its time at which it may change by itself (StoreListSource.changesAt). */
export interface Until<T> {
  value: T;
  changesAt: number;
}

export interface StoreListReader<Wire> {
  page(context: CatalogueContext, offset: number, perPage: number): Promise<Until<{ items: Wire[]; total: number }>>;
  /** The list if the store shows it; not-found otherwise (inactive, unknown, another store's, not running). */
  shown(context: CatalogueContext, by: ByIdOrCode): Promise<Until<Wire>>;
}

export function createStoreListReader<Row extends { id: number }, Wire extends { id: number }>(
  lists: StoreListSource<Row, Wire>,
  ttlMs: number,
): StoreListReader<Wire> {
  const pages = boundedCache<string, Until<{ items: Wire[]; total: number }>>(ttlMs, CACHE_ENTRIES);
  const single = boundedCache<string, Until<Wire | null>>(ttlMs, CACHE_ENTRIES);
  const scopeKey = ({ store, language, caller }: CatalogueContext) => `${store.code}|${language}|${audienceKey(caller)}`;

  /**
   * The cache's answer while it holds at the context's time: a campaign that ends (or starts) within the
   * cache period is not shown (or hidden) past that moment, the answer is read again then.
   */
  async function kept<T>(cache: BoundedCache<string, Until<T>>, key: string, context: CatalogueContext, load: () => Promise<T>) {
    const read = async (): Promise<Until<T>> => {
      const [value, changesAt] = await Promise.all([load(), lists.changesAt?.(context) ?? Infinity]);
      return { value, changesAt };
    };
    const found = await cache.get(key, read);
    if (found.changesAt > context.now) return found;
    const fresh = await read();
    cache.set(key, fresh, fresh.changesAt - context.now);
    return fresh;
  }

  async function withCounts(context: CatalogueContext, rows: Row[]): Promise<Wire[]> {
    const counts = await lists.productCounts(
      context,
      rows.map((row) => row.id),
    );
    return rows.map((row) => lists.toWire(row, counts.get(row.id) ?? 0));
  }

  return {
    page: (context, offset, perPage) =>
      kept(pages, `${scopeKey(context)}|${offset}|${perPage}`, context, async () => {
        const { rows, total } = await lists.page(context, offset, perPage);
        return { items: await withCounts(context, rows), total };
      }),
    async shown(context, by) {
      const key = `${scopeKey(context)}|${'id' in by ? `i${by.id}` : `c${by.code}`}`;
      const { value: list, changesAt } = await kept(single, key, context, async () => {
        const row = await lists.find(context, by);
        return row ? ((await withCounts(context, [row]))[0] ?? null) : null;
      });
      if (!list) throw notFound(lists.notFound, { id: 'id' in by ? by.id : by.code.slice(0, 40) });
      return { value: list, changesAt };
    },
  };
}
