import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import { lockWaiters, tableLockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, type Shop } from './helpers.js';
import { ebook, productCode } from './purchase-helpers.js';

// A change of a product's stores comes by the products feed's line, which takes the product's row
// (findCoded, FOR NO KEY UPDATE) before it writes product_store: like a deactivation, it waits for an
// order that holds the row, stock or share (PostgreSQL), and is not made behind the checkout's back.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
});
afterAll(() => t.close());

it.skipIf(engine !== 'postgres')(
  "a products line taking an e-book out of the checkout's store waits for its order",
  async () => {
    const db = t.database.db;
    const download = await ebook(t, 9);
    const code = await productCode(db, download);
    const who = await fill(t, {}, [[download, 1]]);
    const line = {
      code,
      type: 'EBOOK',
      name: 'E-raamat',
      stores: ['WEB2'],
      shopPrice: 9,
      vatRate: 9,
      availability: 'AVAILABLE',
      binding: 'EPUB',
      deliveryTime: 'INSTANT_DOWNLOAD',
    };
    // The order's lines wait on the test's lock: the checkout has taken its rows and read its products again.
    const hold = await db.startTransaction().execute();
    let answer: Awaited<ReturnType<typeof checkout>> | undefined;
    let imported: Awaited<ReturnType<typeof importLines>> | undefined;
    let request: Promise<void> | undefined;
    let importing: Promise<void> | undefined;
    try {
      await sql`lock table order_line in share mode`.execute(hold);
      request = checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined })).then((response) => void (answer = response));
      await until('the checkout to wait on its lines', async () => answer !== undefined || (await tableLockWaiters(db, 'order_line')) >= 1);
      expect(answer).toBeUndefined();
      importing = importLines(t, 'products', [line]).then((response) => void (imported = response));
      await until('the line to end or wait', async () => imported !== undefined || (await lockWaiters(db)) >= 2);
      // Before the checkout kept its e-book's row, the line committed here.
      expect(imported).toBeUndefined();
      await hold.commit().execute();
    } catch (error) {
      await hold.rollback().execute();
      await Promise.allSettled([request, importing]);
      throw error;
    }
    await Promise.all([request, importing]);
    expect(answer!.statusCode, answer!.body).toBe(200);
    expect(imported!.statusCode, imported!.body).toBe(200);
    expect(imported!.json()).toMatchObject({ outcomes: { updated: 1 }, errorCount: 0 });
    const lines = await db.selectFrom('order_line').select('order_id').where('product_id', '=', download).execute();
    expect(lines).toHaveLength(1);
    const stores = await db.selectFrom('product_store').select('store_code').where('product_id', '=', download).execute();
    expect(stores.map((row) => row.store_code)).toEqual(['WEB2']);
  },
  60_000,
);
