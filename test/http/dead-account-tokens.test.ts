import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A client account removed from its company or erased is never usable again. Its tokens go with it,
// but a login that read the account before the erasure committed and wrote its token after holds a
// token of an erased account; so does anything else that slipped past. The token check refuses
// such a token itself, for reads as well as writes.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const profile = (token: string) =>
  t.app.inject({ method: 'GET', url: '/client-account', headers: { authorization: `Bearer ${token}`, store: 'WEB' } });

describe('a token of an account that is no longer usable', () => {
  it.each(['ERASED', 'REMOVED'] as const)('is a 401 once the account is %s', async (status) => {
    const customer = await createCustomer(t.database.db, { kind: status === 'REMOVED' ? 'BUSINESS' : 'SIMPLE' });
    expect((await profile(customer.token)).statusCode).toBe(200);
    await t.database.db.updateTable('client_account').set({ status }).where('id', '=', customer.clientAccountId).execute();
    const refused = await profile(customer.token);
    expect(refused.statusCode, refused.body).toBe(401);
    expect(refused.json()).toMatchObject({ status: 401 });
    expect(refused.headers['www-authenticate']).toContain('Bearer');
  });
});
