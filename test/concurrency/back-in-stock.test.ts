import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askBackInStock } from '../back-in-stock/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A logged-in client's back-in-stock request sent several times at once (a double click, a retry):
// one request is stored, and exactly one answer says it was made (201); the others answer it as
// asked before (200), as a repeat one after the other does.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '100000/1h', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '100000/1h' } });
});
afterAll(() => t.close());

describe("a client's back-in-stock request sent five times at once", () => {
  it('stores one request and answers 201 once, 200 to the rest, each with that request', async () => {
    const db = t.database.db;
    for (let round = 0; round < 3; round++) {
      const product = await createProduct(db, { name: 'Läbi müüdud', availability: 'TEMPORARILY_OUT_OF_STOCK' });
      const client = await createCustomer(db);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => askBackInStock(t, { productId: product }, { authorization: `Bearer ${client.token}` })),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 200, 200, 200, 201]);
      expect(new Set(answers.map((answer) => answer.json().id)).size).toBe(1);
      const rows = await db.selectFrom('back_in_stock_request').select('id').where('product_id', '=', product).execute();
      expect(rows).toHaveLength(1);
    }
  });
});
