import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashToken } from '../../src/infra/tokens.js';
import { refreshRating } from '../../src/modules/catalogue/denormalised.repository.js';
import { lockProduct } from '../../src/modules/catalogue/reviews/comment.repository.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// An erasure recounts the ratings of the products the person rated. A rating another client gives
// one of them meanwhile must be in the totals: on PostgreSQL the recount waited for that rating's
// product lock and then wrote totals read from before it, so the product lost the rating.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it("keeps another client's rating given while a rater's data is erased in the product's totals", async () => {
  const db = t.database.db;
  const product = await createProduct(db, {});
  const alice = await createCustomer(db);
  const bob = await createCustomer(db);
  const now = Date.now();
  await db
    .insertInto('product_rating')
    .values({ product_id: product, client_account_id: alice.clientAccountId, rating: 4, created_at: now, updated_at: now })
    .execute();
  await refreshRating(db, product);
  // Alice signs in only through a provider: a token of this minute is her confirmation.
  await db.updateTable('access_token').set({ created_at: now }).where('token_hash', '=', hashToken(alice.token)).execute();

  let erased = 0;
  await whileTransactionOpen(
    db,
    // Bob's rating as the service gives it: the product's lock, the row, the totals.
    async (trx) => {
      await lockProduct(trx, product);
      await trx
        .insertInto('product_rating')
        .values({ product_id: product, client_account_id: bob.clientAccountId, rating: 2, created_at: now, updated_at: now })
        .execute();
      await refreshRating(trx, product);
    },
    async () => {
      const response = await t.app.inject({
        method: 'DELETE',
        url: '/client-account',
        headers: { authorization: `Bearer ${alice.token}` },
        payload: {},
      });
      erased = response.statusCode;
    },
  );

  expect(erased).toBe(204);
  const totals = await db.selectFrom('product').select(['rating_sum', 'rating_count']).where('id', '=', product).executeTakeFirstOrThrow();
  expect({ sum: Number(totals.rating_sum), count: Number(totals.rating_count) }).toEqual({ sum: 2, count: 1 });
});
