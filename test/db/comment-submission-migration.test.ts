import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as submissionHashMigration from '../../src/db/migrations/2026_11_28_0620_add_comment_submission_hash.js';
import { createComment } from '../../src/modules/catalogue/reviews/comment.service.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Migration 0620 (product_comment.submission_hash and product_comment_submission_idx, which replaces
// product_comment_client_idx) goes down and up again on both engines with comments in the table,
// and keeps them.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The names of product_comment's indexes. */
async function indexes(): Promise<string[]> {
  const query =
    t.database.engine === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'product_comment'`
      : sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'product_comment'`;
  return (await query.execute(t.database.db)).rows.map((row) => row.name);
}

describe('migration 2026_11_28_0620_add_comment_submission_hash', () => {
  it('goes down and up again, keeping the comments', async () => {
    const db = t.database.db;
    const customer = await createCustomer(db);
    const productId = await createProduct(db);
    const input = { productId, clientAccountId: customer.clientAccountId, body: 'Jääb alles', language: 'et' as const, now: Date.now() };
    const written = await db.transaction().execute((trx) => createComment(trx, input));
    expect(await indexes()).toContain('product_comment_submission_idx');
    expect(await indexes()).not.toContain('product_comment_client_idx');

    await submissionHashMigration.down(db);
    expect(await indexes()).toContain('product_comment_client_idx');
    expect(await indexes()).not.toContain('product_comment_submission_idx');
    const columns = (await db.introspection.getTables()).find((table) => table.name === 'product_comment')!.columns.map((c) => c.name);
    expect(columns).not.toContain('submission_hash');

    await submissionHashMigration.up(db);
    expect(await indexes()).toContain('product_comment_submission_idx');
    expect(await indexes()).not.toContain('product_comment_client_idx');
    const kept = await db.selectFrom('product_comment').select(['id', 'body', 'submission_hash']).execute();
    expect(kept).toEqual([{ id: written.id, body: 'Jääb alles', submission_hash: null }]);
    // A row from before the migration has no hash: the same submit again is a new comment.
    const again = await db.transaction().execute((trx) => createComment(trx, { ...input, now: input.now + 1 }));
    expect(again.id).not.toBe(written.id);
    const repeat = await db.transaction().execute((trx) => createComment(trx, { ...input, now: input.now + 2 }));
    expect(repeat.id).toBe(again.id);
  });
});
