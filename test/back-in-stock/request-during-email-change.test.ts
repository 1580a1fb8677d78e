import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { askBackInStock } from './helpers.js';

// A client's request made while a change of their login email commits: the change moves the person's
// requests in its transaction (which writes, and so holds, the user's row), and a request read its
// address before that. The request reads the address again under the user's lock, so it is either
// made first and moved by the change, or made after it at the new address; never left at the old one.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '1000/1h' } });
});
afterAll(async () => t?.close());

describe('a back-in-stock request while the login email changes', () => {
  it('is stored at the new address', async () => {
    const oldEmail = uniqueEmail('bis-old');
    const newEmail = uniqueEmail('bis-new');
    const token = await registerVerified(t, oldEmail);
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', oldEmail).executeTakeFirstOrThrow();
    const productId = await createProduct(t.database.db, { name: 'Talvine aed', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    let answer: Awaited<ReturnType<typeof askBackInStock>> | undefined;
    await whileTransactionOpen(
      t.database.db,
      // The confirmed change's write of the user's row, held open while the request comes in.
      (trx) => trx.updateTable('app_user').set({ email: newEmail }).where('id', '=', user.id).execute(),
      async () => {
        answer = await askBackInStock(t, { productId }, { authorization: `Bearer ${token}` });
      },
    );
    expect(answer?.statusCode, answer?.body).toBeLessThan(300);
    const rows = await t.database.db.selectFrom('back_in_stock_request').select('email').where('product_id', '=', productId).execute();
    expect(rows.map((row) => row.email)).toEqual([newEmail]);
  });
});
