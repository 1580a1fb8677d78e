import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { expectErrorBody } from '../helpers/http.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { backOfficeImport, book, ndjson, postFeed } from './helpers.js';

keepEachTestInOneRateLimitWindow();

// A feed refused because another feed of its kind runs (409, "try again after ...") changed nothing:
// the supplier's client sends the same signed request again, as an HTTP client retries, and it must
// be taken then, not refused as a replay of itself (nor count against the supplier's limit).

let t: TestApp;
let secret: string;
beforeAll(async () => {
  t = await createTestApp({ env: { SUPPLIER_RATE_LIMIT: '2/1m' } });
  secret = await addSupplier(t.database.db, 'BUSY', 'Busy Books', Date.now());
  await backOfficeImport(t, 'shops', [{ code: 'B-DEPOT', names: { et: 'Ladu' }, city: 'Tallinn', webStock: true }]);
});
afterAll(() => t.close());

describe('a supplier feed refused while another of its kind runs', () => {
  it('is taken when the same signed request is sent again once the other is done, and spends none of the limit', async () => {
    const db = t.database.db;
    expect((await postFeed(t, 'BUSY', 'products', ndjson([book('B-1')]), secret)).statusCode).toBe(200);
    const { id } = await db.selectFrom('supplier').select('id').where('code', '=', 'BUSY').executeTakeFirstOrThrow();
    const kind = `stock@supplier-${id}`;
    const now = Date.now();
    await db
      .insertInto('import_lock')
      .values({ kind, owner: 'another run', started_at: now, expires_at: now + 60_000 })
      .execute();
    const body = ndjson([{ product: 'B-1', shop: 'B-DEPOT', quantity: 5 }]);
    const timestampSeconds = Math.floor(now / 1000);
    try {
      const refused = await postFeed(t, 'BUSY', 'stock', body, secret, { timestampSeconds });
      expect(expectErrorBody(refused, 409, 'Conflict').message).toContain('stock@supplier-');
    } finally {
      await db.deleteFrom('import_lock').where('kind', '=', kind).execute();
    }
    const retried = await postFeed(t, 'BUSY', 'stock', body, secret, { timestampSeconds });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ lines: 1, errorCount: 0 });
    const stock = await db.selectFrom('product').select('web_stock').where('code', '=', 'B-1').executeTakeFirstOrThrow();
    expect(Number(stock.web_stock)).toBe(5);
    // Two of two spent, the products feed and the stock feed taken (had the refused one counted, the
    // retry would have been a 429): a third is over the limit.
    expectErrorBody(
      await postFeed(t, 'BUSY', 'stock', ndjson([{ product: 'B-1', shop: 'B-DEPOT', quantity: 6 }]), secret),
      429,
      'Too Many Requests',
    );
  });
});
