import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { expectErrorBody } from '../helpers/http.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { backOfficeImport, book, ndjson, postFeed } from './helpers.js';

keepEachTestInOneRateLimitWindow();

// A supplier's rate limit counts the requests it signs. A copy of one of them sent again (a replay,
// 409) is not a request of the supplier's: it must not spend what the supplier may still send.

let t: TestApp;
let secret: string;
beforeAll(async () => {
  t = await createTestApp({ env: { SUPPLIER_RATE_LIMIT: '3/1m' } });
  secret = await addSupplier(t.database.db, 'REPLAYED', 'Replayed Books', Date.now());
  await backOfficeImport(t, 'shops', [{ code: 'R-DEPOT', names: { et: 'Ladu' }, city: 'Tallinn', webStock: true }]);
});
afterAll(() => t.close());

describe("a replayed supplier request and the supplier's rate limit", () => {
  it("answers replays 409 without spending the supplier's requests", async () => {
    const products = await postFeed(t, 'REPLAYED', 'products', ndjson([book('R-1')]), secret);
    expect(products.statusCode, products.body).toBe(200);
    const body = ndjson([{ product: 'R-1', shop: 'R-DEPOT', quantity: 3 }]);
    const timestampSeconds = Math.floor(Date.now() / 1000);
    expect((await postFeed(t, 'REPLAYED', 'stock', body, secret, { timestampSeconds })).statusCode).toBe(200);
    // Someone who caught the signed request sends it again and again.
    for (let copy = 0; copy < 3; copy += 1)
      expectErrorBody(await postFeed(t, 'REPLAYED', 'stock', body, secret, { timestampSeconds }), 409, 'Conflict');
    // The supplier has sent two of its three: its next request goes through.
    const next = await postFeed(t, 'REPLAYED', 'stock', ndjson([{ product: 'R-1', shop: 'R-DEPOT', quantity: 4 }]), secret);
    expect(next.statusCode, next.body).toBe(200);
  });
});
