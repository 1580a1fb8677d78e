import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, ymdHis } from './fixtures.js';

// During a rolling deploy the release before migrations 2026_12_09_1042/1043 still runs: it inserts
// client accounts (a registration) and sales history rows (the import) without updated_at, which
// defaulted to 0, so the export's updatedFrom never found them. Such a row now gets its created_at,
// as this build's own inserts do (migration 2026_12_11_1600).

let t: TestApp;
let authorization: string;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const q = (ms: number) => encodeURIComponent(ymdHis(ms));

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: '0', DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
});
afterAll(() => t?.close());

describe('rows the release before inserts, without updated_at', () => {
  it('a client account is in the update window of its creation', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    // Inserted as the old release does: no updated_at.
    const customer = await createCustomer(t.database.db);
    const row = await t.database.db
      .selectFrom('client_account')
      .select(['created_at', 'updated_at'])
      .where('id', '=', customer.clientAccountId)
      .executeTakeFirstOrThrow();
    expect(row.updated_at).toBe(row.created_at);
    const response = await get(`/client-account?updatedFrom=${q(before)}`);
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Array<{ client: string }>).map((item) => item.client)).toContain(customer.clientCode);
  });

  it('a sales history row is in the update window of its creation', async () => {
    await t.database.db
      .insertInto('sales_history')
      .values({
        order_code: 'OLD00001',
        client_code: 'W1000001',
        client_type: 'PYSIKLIENT',
        source_type: 'ONLINE',
        city: 'Tallinn',
        session_id: null,
        delivery_method: 'COURIER',
        shop_code: null,
        created_at: T0,
        created_nav: null,
      })
      .execute();
    const response = await get(`/sales-history?updatedFrom=${q(T0)}&updatedTo=${q(T0)}`);
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Array<{ order: string }>).map((item) => item.order)).toEqual(['OLD00001']);
  });
});
