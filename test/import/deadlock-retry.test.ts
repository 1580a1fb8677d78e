import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { createImportTestApp, type ImportTestApp } from './helpers.js';

// A line of an import and another writer's transaction can each wait for the other on PostgreSQL, which
// ends one (40P01): an edit of a product's child rows (stores, categories) takes the product's refresh
// lock before its row, a line's update of the product the other way round. (Rows that many products
// shared, the category totals, made it meet writers of other products too, until migration
// 2026_12_10_1010.) A line that loses runs again. SQLite runs one write transaction at a time, so there
// is no deadlock to meet.

let t: ImportTestApp;
beforeAll(async () => {
  t = await createImportTestApp();
});
afterAll(async () => t?.close());

const book = (code: string, categories: string[], stores: string[], releasedAt: string | null) => ({
  code,
  type: 'BOOK',
  name: code,
  categories,
  stores,
  shopPrice: 10,
  vatRate: 9,
  availability: 'AVAILABLE',
  releasedAt,
});

it.runIf(engine === 'postgres')(
  "an import's line ended on a deadlock by another writer runs again and is written (PostgreSQL: SQLite has one writer)",
  async () => {
    const db = t.database.db;
    const categories = await t.run('categories', [
      { code: 'DL-WEB', store: 'WEB', names: { et: 'Üks', en: 'One' } },
      { code: 'DL-WEB2', store: 'WEB2', names: { et: 'Kaks', en: 'Two' } },
    ]);
    const products = await t.run('products', [
      book('DL-P', ['DL-WEB', 'DL-WEB2'], ['WEB', 'WEB2'], null),
      book('DL-Q', ['DL-WEB2'], ['WEB2'], null),
    ]);
    expect([categories.reported, products.reported]).toEqual([[], []]);
    const id = async (code: string) => (await db.selectFrom('product').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id;
    const p = await id('DL-P');

    const warn = vi.spyOn(t.app.log, 'warn');
    // PostgreSQL ends whichever of the two checks for a deadlock first, deadlock_timeout (1 s) after it
    // began to wait: the line, when this transaction's update waits within that second of the line's wait.
    // On a loaded machine it may come later, and then this transaction is the one ended; the scenario is
    // run again, with another date for the line to write, until the line is the one that lost.
    let day = 0;
    let lineLost = false;
    while (!lineLost && day < 5) {
      day += 1;
      lineLost = await lineMeetsDeadlock(Number(p), `2024-02-0${day}`);
    }
    expect(lineLost).toBe(true);
    // It was ended on a deadlock, and said so.
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ attempt: 1 }), expect.stringContaining('deadlock'));
    const released = await db.selectFrom('product').select('released_at').where('id', '=', p).executeTakeFirstOrThrow();
    expect(Number(released.released_at)).toBe(Date.UTC(2024, 1, day));
    // The list follows: P in both categories' lists, as many as their totals say.
    for (const code of ['DL-WEB', 'DL-WEB2']) {
      const category = await db.selectFrom('category').select('id').where('code', '=', code).executeTakeFirstOrThrow();
      const store = code === 'DL-WEB' ? 'WEB' : 'WEB2';
      const res = await t.app.inject({ method: 'GET', url: `/category/${category.id}/products?per-page=50`, headers: { store } });
      expect(res.statusCode, res.body).toBe(200);
      const ids = res.json().map((item: { id: number }) => item.id);
      expect(ids).toContain(Number(p));
      expect(Number(res.headers['x-pagination-total-count'])).toBe(ids.length);
    }
  },
);

/**
 * Another writer edits P's store rows (whose triggers refresh P's lists under P's lock), then P itself once
 * the import's line, which holds P's row, waits for that lock: each waits for the other. Whether the line was
 * the one PostgreSQL ended (and it ran again, writing `releasedAt`), or this writer (then the line wrote on
 * its first run).
 */
async function lineMeetsDeadlock(p: number, releasedAt: string): Promise<boolean> {
  const db = t.database.db;
  let line: ReturnType<ImportTestApp['run']> | undefined;
  let writerLost = false;
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('product_store')
        .set({ store_code: 'WEB' })
        .where('product_id', '=', p)
        .where('store_code', '=', 'WEB')
        .execute();
      // Q listed as it is, so the feed does not deactivate it.
      line = t.run('products', [
        book('DL-P', ['DL-WEB', 'DL-WEB2'], ['WEB', 'WEB2'], releasedAt),
        book('DL-Q', ['DL-WEB2'], ['WEB2'], null),
      ]);
      await until("the line to wait for P's lock", async () => (await lockWaiters(db)) >= 1);
      await trx
        .updateTable('product')
        .set({ released_at: Date.UTC(2024, 0, 2) })
        .where('id', '=', p)
        .execute();
    });
  } catch (err) {
    if ((err as { code?: string }).code !== '40P01') throw err;
    writerLost = true;
  }
  const result = await line!;
  expect(result.reported).toEqual([]);
  expect(result.outcomes).toEqual({ updated: 1, unchanged: 1 });
  return !writerLost;
}
