import type { DatabaseHandle, Db } from '../../db/database.js';
import { boundedCache, type BoundedCache } from '../../infra/bounded-cache.js';
import {
  preparedBasketProducts,
  preparedLineQueries,
  preparedPlainLines,
  type BasketLine,
  type LineQueries,
  type LineReader,
} from './basket-lines.repository.js';
import type { BasketProduct } from './basket-products.repository.js';

// A basket shows its lines' products as the catalogue shows them: kept per process for the
// catalogue's cache period (CATALOGUE_CACHE_TTL_MS), so a line's price is the product card's and a
// basket read costs one small read of its lines (measured: the lines joined to their products were
// about a quarter of GET /basket and of add-product). What a rule decides on is never kept data: a
// write reads the product it acts on in its transaction (and keeps it, so the answer and the reads
// after it in this process show what it decided on), and checkout reads every product afresh.
// With a period of 0 the lines are read joined to their products, as checkout reads them.
/** The most products kept per store and process (about 1 KB each). */
const KEPT_PRODUCTS = 50_000;

export interface BasketProductCache {
  /** The basket's lines, their products from the kept ones (the others read in one batch). */
  lines: LineReader;
  /** The write path's queries: the lines as `lines` reads them, the product a write acts on read by `queries` and kept. */
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

  return {
    lines,
    forWrites(queries) {
      return {
        lines,
        async product(db, productId, storeCode) {
          const product = await queries.product(db, productId, storeCode);
          if (product) keptIn(storeCode).set(productId, product);
          return product;
        },
      };
    },
  };
}
