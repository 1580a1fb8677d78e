import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { ndjson } from '../helpers/back-office.js';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { as } from '../profile/helpers.js';
import { exportUser } from './fixtures.js';

// The back office reports a client's purchases after they happened (a shop sale in the nightly batch):
// one that arrives after the client's erasure must not bring back what the erasure took out of their
// sales history (the city and the session).

let t: AccountsTestApp;
let key: string;
let authorization: string;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { DATA_EXPORT_COUNT_CACHE_TTL_MS: '0', DATA_EXPORT_SETTLE_MS: '0' } });
  key = await createApiKey(t.database.db, 'back-office', Date.now());
  ({ authorization } = await exportUser(t.database.db));
});
afterAll(async () => t?.close());

const importSales = (lines: unknown[]) =>
  t.app.inject({
    method: 'POST',
    url: '/admin/import/sales-history',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: ndjson(lines),
  });

async function exported(order: string) {
  const response = await t.app.inject({ method: 'GET', url: '/export/sales-history?per-page=1000', headers: { authorization } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<Record<string, unknown>>).filter((row) => row.order === order);
}

const sale = (order: string, client: string) => ({
  order,
  client,
  clientType: 'PYSIKLIENT',
  sourceType: 'OFFLINE',
  city: 'Viljandi',
  session: `session-${order}`,
  deliveryMethod: 'SHOP',
  shop: 'VLJ-1',
  products: ['P-1'],
});

describe('a sale imported after its client was erased', () => {
  it('carries neither the city nor the session', async () => {
    const email = uniqueEmail('erasedbuyer');
    const token = await registerVerified(t, email);
    const { code } = await t.database.db
      .selectFrom('client_account')
      .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
      .select('client_account.code')
      .where('app_user.email', '=', email)
      .executeTakeFirstOrThrow();
    const other = await registerVerified(t, uniqueEmail('keptbuyer'));
    expect(other).toBeTruthy();

    const before = await importSales([sale('SHOP-BEFORE', code)]);
    expect(before.statusCode, before.body).toBe(200);
    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await exported('SHOP-BEFORE')).toEqual([expect.objectContaining({ client: code, city: '[erased]', session: null })]);

    // The shop's sale of the day before the erasure, reported in the next batch.
    const after = await importSales([sale('SHOP-AFTER', code), sale('SHOP-STRANGER', 'W99999999')]);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json()).toMatchObject({ errorCount: 0 });
    expect(await exported('SHOP-AFTER')).toEqual([expect.objectContaining({ client: code, city: '[erased]', session: null })]);
    // Someone else's sale keeps its city and session.
    expect(await exported('SHOP-STRANGER')).toEqual([
      expect.objectContaining({ client: 'W99999999', city: 'Viljandi', session: 'session-SHOP-STRANGER' }),
    ]);
  });
});
