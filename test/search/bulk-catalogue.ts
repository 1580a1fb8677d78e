import { beginBulkWrite, endBulkWrite } from '../../src/modules/catalogue/index.js';
import { createEngine, FOLD_BATCH, foldBatch } from '../../src/modules/search/index.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * `count` plain books in WEB named "Bulk book <n> <word>", written in batches (thousands in a
 * second or two on both engines, where createProduct writes one at a time), with the search index
 * folded (unless `fold: false`: left queued, as a first import leaves them), for tests that need a
 * search to take a while.
 */
export async function createBulkProducts(
  t: Pick<TestApp, 'database'>,
  count: number,
  prefix = 'BULK',
  options: { fold?: boolean } = {},
): Promise<void> {
  const db = t.database.db;
  const now = Date.now();
  const BATCH = 400;
  for (let start = 0; start < count; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) => {
      const n = start + offset;
      return {
        code: `${prefix}-${n}`,
        ean: null,
        type: 'BOOK' as const,
        name: `Bulk book ${n} ${['raamat', 'lugu', 'kiri', 'laul'][n % 4]}`,
        alt_names: '[]',
        description: null,
        language: 'ET',
        binding_code: 'HARDCOVER',
        year: 2024,
        pages: 200,
        width_mm: 130,
        height_mm: 200,
        depth_mm: 20,
        weight_g: 300,
        publisher_id: null,
        series_id: null,
        series_number: null,
        physical_book_id: null,
        shop_price_cents: 500 + (n % 5000),
        original_price_cents: null,
        wholesale_price_cents: null,
        vat_rate_percent: 9,
        discount_percent: 0,
        availability: 'AVAILABLE' as const,
        delivery_time: 'DAYS_1_7' as const,
        is_active: true,
        hidden_web: false,
        hidden_business: false,
        sales_count: n % 100,
        released_at: Date.UTC(2024, 0, 1),
        created_at: now,
        updated_at: now,
      };
    });
    // As the demo's bulk writer does: on PostgreSQL the documents are built once per product, not per row.
    await db.transaction().execute(async (trx) => {
      await beginBulkWrite(t.database, trx);
      const ids = await trx.insertInto('product').values(rows).returning('id').execute();
      await trx
        .insertInto('product_store')
        .values(ids.map(({ id }) => ({ product_id: id, store_code: 'WEB' })))
        .execute();
      await endBulkWrite(
        t.database,
        trx,
        ids.map(({ id }) => Number(id)),
      );
    });
  }
  if (options.fold === false) return;
  const engine = createEngine(t.database);
  while ((await foldBatch(t.database, engine, FOLD_BATCH, Date.now())) > 0);
}
