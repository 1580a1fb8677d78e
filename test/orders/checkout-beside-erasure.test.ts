import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashToken } from '../../src/infra/tokens.js';
import { refreshRating } from '../../src/modules/catalogue/denormalised.repository.js';
import { createCustomer } from '../helpers/customers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook } from './purchase-helpers.js';

// A guest's checkout with the address of a client who erases their data at that moment, of a book
// and an e-book the client rated (PostgreSQL). The checkout takes the email's event stream
// (order.created) before its products' rows; the erasure takes the rated products' rows
// (the rating recount) before it moved that stream (events part): each waited for the other, and
// PostgreSQL ended one (a 500). The erasure now moves the streams before it recounts the ratings.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
});
afterAll(() => t.close());

it.skipIf(engine !== 'postgres')(
  'a guest checkout of an e-book beside the erasure of the client whose address it gives',
  async () => {
    const db = t.database.db;
    const book = await stockedBook(t, shop, 5);
    const download = await ebook(t, 9);
    expect(book < download).toBe(true);
    const alice = await createCustomer(db);
    const email = (
      await db
        .selectFrom('client_account')
        .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
        .select('app_user.email')
        .where('client_account.id', '=', alice.clientAccountId)
        .executeTakeFirstOrThrow()
    ).email;
    const now = Date.now();
    await db
      .insertInto('product_rating')
      .values({ product_id: download, client_account_id: alice.clientAccountId, rating: 4, created_at: now, updated_at: now })
      .execute();
    await refreshRating(db, download);
    await db.updateTable('access_token').set({ created_at: now }).where('token_hash', '=', hashToken(alice.token)).execute();
    // An earlier guest order with her address made its stream.
    await db
      .insertInto('integration_stream')
      .values({ stream: `email:${email}`, last_sequence: 1 })
      .execute();
    const guest = await fill(t, {}, [
      [book, 1],
      [download, 1],
    ]);

    const hold = await db.startTransaction().execute();
    let answer: Awaited<ReturnType<typeof checkout>> | undefined;
    let erasure: Awaited<ReturnType<typeof t.app.inject>> | undefined;
    let request: Promise<void> | undefined;
    let erasing: Promise<void> | undefined;
    try {
      // The checkout holds the email's stream and waits on the book's row.
      await sql`select id from product where id = ${book} for no key update`.execute(hold);
      request = checkout(t, guest, checkoutForm(shop, { billingEmail: email })).then((response) => void (answer = response));
      await until('the checkout to wait on the book', async () => answer !== undefined || (await lockWaiters(db)) >= 1);
      expect(answer).toBeUndefined();
      // The erasure locks the e-book (rated) and waits on the stream.
      erasing = t.app
        .inject({ method: 'DELETE', url: '/client-account', headers: { authorization: `Bearer ${alice.token}` }, payload: {} })
        .then((response) => void (erasure = response));
      await until('the erasure to wait', async () => erasure !== undefined || (await lockWaiters(db)) >= 2);
      await hold.commit().execute();
    } catch (error) {
      await hold.rollback().execute();
      await Promise.allSettled([request, erasing]);
      throw error;
    }
    await Promise.all([request, erasing]);
    expect(erasure!.statusCode, erasure!.body).toBe(204);
    expect(answer!.statusCode, answer!.body).toBe(200);
  },
  60_000,
);
