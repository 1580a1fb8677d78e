import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { exportRows } from '../orders/purchase-helpers.js';

// The back office reports its own order time (POST /admin/orders/:code/status) of a paid order; the
// data export's sales history row of the order carries it as createdNav, whenever the row is written.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: '0' } });
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(() => t?.close());

describe("the back office's order time in the sales history", () => {
  it('is there when the back office reported it before the paid order was processed', async () => {
    const code = `BNAV${Date.now().toString(36).toUpperCase()}`;
    const productId = await createProduct(t.database.db as never, { code, type: 'BOOK' });
    await t.database.db.updateTable('product').set({ web_stock: 5 }).where('id', '=', productId).execute();
    // Paid, its processing job not run yet.
    const order = await insertOrder(t.database.db, { status: 'PENDING_PROCESSING', lines: [{ productId, productCode: code }] });
    const reported = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${order.code}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'Received', createdAt: '2026-11-24T10:15:00Z' },
    });
    expect(reported.statusCode, reported.body).toBe(200);
    expect(reported.json()).toMatchObject({ backOffice: { createdAt: '2026-11-24T10:15:00Z' } });

    await t.drainJobs();
    expect(await exportRows(t, order.code)).toEqual([expect.objectContaining({ order: order.code, createdNav: '2026-11-24T10:15:00Z' })]);
  });
});
