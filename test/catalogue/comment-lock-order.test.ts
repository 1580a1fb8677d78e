import { afterAll, beforeAll, expect, it } from 'vitest';
import { lockProduct } from '../../src/modules/catalogue/reviews/comment.repository.js';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { clientAccountOf, postComment } from '../helpers/catalogue-comments.js';
import { engine } from '../helpers/test-app.js';

// A person's erasure takes their client account's lock first (modules/client-account-lock), then their
// rated products' locks (the catalogue's part). A rated comment of the same person takes both too: in
// the other order, the two would wait for each other on PostgreSQL, and one would be aborted as a
// deadlock. SQLite runs one write transaction at a time, so only PostgreSQL is asked.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

it.runIf(engine === 'postgres')('a rated comment waits behind an erasure-shaped transaction instead of deadlocking with it', async () => {
  const db = t.database.db;
  const productId = await createProduct(db, { code: 'C-LOCKS', name: 'Lukud' });
  const token = await registerVerified(t, uniqueEmail('locks'));
  const clientAccountId = await clientAccountOf(db, token);
  let commented: Promise<Awaited<ReturnType<typeof postComment>>> | undefined;
  await db.transaction().execute(async (trx) => {
    await trx.selectFrom('client_account').select('id').where('id', '=', clientAccountId).forNoKeyUpdate().execute();
    commented = postComment(t, token, productId, { body: 'Hea raamat', rating: 4 });
    // Time for the comment to take whatever it takes before it waits.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await lockProduct(trx, productId);
  });
  const answer = await commented!;
  expect(answer.statusCode, answer.body).toBe(201);
});
