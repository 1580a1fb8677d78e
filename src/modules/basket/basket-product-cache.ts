import type { DatabaseHandle, Db } from '../../db/database.js';
import { boundedCache, type BoundedCache } from '../../infra/bounded-cache.js';
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

// A basket shows its lines' products as the catalogue shows them: kept per process for the
// catalogue's cache period (CATALOGUE_CACHE_TTL_MS), so a line's price is the product card's and a
// basket read costs one small read of its lines (measured: the lines joined to their products were
// about a quarter of GET /basket and of add-product). What a rule decides on is never kept data: a
// write reads the products it acts on in its transaction (add-product, change-quantity, merge) and
// keeps them, so its answer and the reads after it in this process show what it decided on (a read
// that began before never puts an older copy back: infra/bounded-cache.ts); checkout reads every
// product afresh. A line whose kept product shows a price other than the one the line was added at
// is priced again from the product read now (`refresh`), so "price changed" is never said from a
// copy older than the line. With a period of 0 the lines are read joined to their products.
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
  // One cache per store, by product id: number keys cost a fraction of composed strings (a tenth of
  // GET /basket went to building and hashing `store:id` keys).
  const stores = new Map<string, BoundedCache<number, BasketProduct | null>>();
  const keptIn = (storeCode: string) => {
    let kept = stores.get(storeCode);
    if (kept === undefined) {
      kept = boundedCache(ttlMs, KEPT_PRODUCTS, 'basket.products');
      stores.set(storeCode, kept);
    }
    return kept;
  };
  const plainLines = preparedPlainLines(handle);
  const readProducts = preparedBasketProducts(handle);

  async function products(db: Db, storeCode: string, ids: number[]): Promise<Map<number, BasketProduct | null>> {
    return keptIn(storeCode).getMany(ids, async (missing) => {
      const read = await readProducts(db, storeCode, missing);
      // A product that is gone is kept as such (its line goes with it, by the foreign key).
      return new Map(missing.map((id) => [id, read.get(id) ?? null]));
    });
  }

  async function lines(db: Db, basketId: number, storeCode: string): Promise<BasketLine[]> {
    const rows = await plainLines(db, basketId);
    if (rows.length === 0) return [];
    const found = await products(
      db,
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
      const kept = keptIn(storeCode);
      for (const [id, product] of found) kept.set(id, product);
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
          if (product) keptIn(storeCode).set(productId, product);
          return product;
        },
        products: keeping(queries.products),
      };
    },
  };
}
