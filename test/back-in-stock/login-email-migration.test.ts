import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/2026_12_01_0900_move_back_in_stock_to_login_email.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, emailOf, userIdOf, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { askBackInStock } from './helpers.js';

// Migration 2026_12_01_0900 puts the client requests that an email change confirmed before left at
// the old address at the client's login email; a user whose login email nobody confirmed keeps
// them where they are, and guests' requests are not touched. Then the old address is free again: a
// guest asking with it gets a request of their own.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h' } });
});
afterAll(() => t?.close());

const db = () => t.database.db;

/** The client's request for the product, with the address it had before its user's email changed. */
async function staleRequest(who: TestCustomer, productId: number, oldEmail: string): Promise<number> {
  const asked = await askBackInStock(t, { productId }, { authorization: `Bearer ${who.token}` });
  expect(asked.statusCode, asked.body).toBe(201);
  await db().updateTable('back_in_stock_request').set({ email: oldEmail }).where('id', '=', asked.json().id).execute();
  return asked.json().id;
}

const emailOfRequest = async (id: number) =>
  (await db().selectFrom('back_in_stock_request').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;

describe('migration 2026_12_01_0900_move_back_in_stock_to_login_email', () => {
  it("puts confirmed clients' requests at their login email, and only those", async () => {
    const product = await createProduct(db(), { name: 'Vana aadress', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const moved = await createCustomer(db());
    const unconfirmed = await createCustomer(db());
    const movedRequest = await staleRequest(moved, product, 'was-moved@example.ee');
    const unconfirmedRequest = await staleRequest(unconfirmed, product, 'was-unconfirmed@example.ee');
    await db()
      .insertInto('unconfirmed_login_email')
      .values({ user_id: await userIdOf(db(), unconfirmed), since: Date.now() })
      .execute();

    await migration.up(db());

    expect(await emailOfRequest(movedRequest)).toBe(await emailOf(db(), moved));
    expect(await emailOfRequest(unconfirmedRequest)).toBe('was-unconfirmed@example.ee');
    // The old address is no client's now: its owner asks as a guest and gets a request of their own.
    expect((await askBackInStock(t, { productId: product, email: 'was-moved@example.ee' })).statusCode).toBe(202);
    const guest = await db()
      .selectFrom('back_in_stock_request')
      .select('client_account_id')
      .where('email', '=', 'was-moved@example.ee')
      .execute();
    expect(guest).toEqual([{ client_account_id: null }]);
  });
});
