import type { DatabaseHandle, Db } from '../../db/database.js';
import { boundedCaches, type BoundedCache } from '../../infra/bounded-cache.js';
import { referenceVersions } from '../catalogue/index.js';
import {
  preparedBasketProducts,
  preparedLineQueries,
  preparedPlainLines,
  type BasketLine,
  type LineQueries,
  type LineReader,
  type ProductsReader,
} from './basket-lines.repository.js';
import type { BasketProduct } from './basket-products.repository.js';

// A basket's lines' products, kept per process so that a basket read costs one small read of its
// lines and one of a version (measured: the lines joined to their products were about a quarter of
// GET /basket and of add-product). They are kept only while the 'price' version of
// catalogue_reference_version stands (bumped by triggers on every change to prices, VAT,
// campaigns, assortments, visibility and availability: migration 2026_11_27_1300; in the same
// commit as the change, on PostgreSQL at the writer's commit: 2026_12_12_1110, to a value never
// seen before, after a crash too: 2026_12_13_1600), so a basket is priced from current data on
// every read, and at most CATALOGUE_CACHE_TTL_MS, which bounds how old the stock it shows may be. What a rule decides on is never kept data: a write reads the products
// it acts on in its transaction (add-product, change-quantity, merge) and keeps them, so its answer
// and the reads after it in this process show what it decided on (a read that began before never
// puts an older copy back: infra/bounded-cache.ts); checkout reads every product afresh. A line
// whose kept product shows a price other than the one the line was added at is priced again from
// the product read now (`refresh`). With a period of 0 the lines are read joined to their products.

/** The most products kept per store and process (about 1 KB each). */
const KEPT_PRODUCTS = 50_000;

export interface BasketProductCache {
  /** The basket's lines, their products from the kept ones (the others read in one batch). */
  lines: LineReader;
  /** Products read now, and kept (basket-pricing.ts's `refresh`: a line whose kept product shows a changed price); none with a period of 0. */
  refresh?: ProductsReader;
  /** The write path's queries: the lines as `lines` reads them; the products a write acts on read by `queries`, and kept. */
  forWrites(queries: LineQueries): LineQueries;
}

export function basketProductCache(handle: DatabaseHandle, ttlMs: number): BasketProductCache {
  if (ttlMs <= 0) return { lines: preparedLineQueries(handle).lines, forWrites: (queries) => queries };
  type Stores = (storeCode: string) => BoundedCache<number, BasketProduct | null>;
  const newStores = (): Stores => boundedCaches(ttlMs, KEPT_PRODUCTS, 'basket.products');
  // The products kept under one price version, per store and by product id.
  let kept: { version: number | undefined; stores: Stores } = { version: undefined, stores: newStores() };
  const plainLines = preparedPlainLines(handle);
  const readProducts = preparedBasketProducts(handle);
  const versions = referenceVersions(handle);

  /**
   * The products kept under the current price version (catalogue_reference_version 'price'): none
   * once it moved on (loads still running then fill the set they began with, which is dropped). Read
   * before the products, as catalogue/reference-cache.ts does: a change landing in between makes the
   * next read load again. A writer's change and its bump commit together, so products read while
   * it was open (its change not seen) are kept under the version its commit moves on from.
   */
  async function current(db: Db): Promise<Stores> {
    const version = await versions('price', db);
    if (version !== kept.version) kept = { version, stores: newStores() };
    return kept.stores;
  }

  async function products(db: Db, stores: Stores, storeCode: string, ids: number[]): Promise<Map<number, BasketProduct | null>> {
    return stores(storeCode).getMany(ids, async (missing) => {
      const read = await readProducts(db, storeCode, missing);
      // A product that is gone is kept as such (its line goes with it, by the foreign key).
      return new Map(missing.map((id) => [id, read.get(id) ?? null]));
    });
  }

  async function lines(db: Db, basketId: number, storeCode: string): Promise<BasketLine[]> {
    const rows = await plainLines(db, basketId);
    if (rows.length === 0) return [];
    const stores = await current(db);
    const found = await products(
      db,
      stores,
      storeCode,
      rows.map((row) => row.product_id),
    );
    const result: BasketLine[] = [];
    for (const line of rows) {
      const product = found.get(line.product_id);
      if (product) result.push({ line, product });
    }
    return result;
  }

  /** `read`'s products, kept for the reads after them (a kept one read earlier is replaced). */
  const keeping =
    (read: ProductsReader): ProductsReader =>
    async (db, storeCode, ids) => {
      const found = await read(db, storeCode, ids);
      const products = kept.stores(storeCode);
      for (const [id, product] of found) products.set(id, product);
      return found;
    };

  return {
    lines,
    refresh: keeping(readProducts),
    forWrites(queries) {
      return {
        lines,
        async product(db, productId, storeCode) {
          const product = await queries.product(db, productId, storeCode);
          if (product) kept.stores(storeCode).set(productId, product);
          return product;
        },
        products: keeping(queries.products),
      };
    },
  };
}
