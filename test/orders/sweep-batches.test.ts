import { afterAll, beforeAll, expect, it } from 'vitest';
import { ordersInStatusSince } from '../../src/modules/orders/processing/processing.repository.js';
import { createProduct } from '../helpers/catalogue.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The sweep reads a status's stale orders in batches after a cursor (status_changed_at, id). Every
// order comes once, ties on the time included, and a batch's index range starts at the cursor: with
// the cursor only as an OR the range began at the oldest order, so each batch read the earlier ones
// again (quadratic while orders pile up, say with the gateway down).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it('walks every stale order once in batches, ties on the time included, each batch from the cursor on', async () => {
  const db = t.database.db;
  const product = await createProduct(db, { code: 'SWEEP-1' });
  const base = Date.now() - 3_600_000;
  const ids: number[] = [];
  for (let i = 0; i < 7; i += 1) {
    // Pairs share a time, so the cursor's tie-break on the id matters.
    const lines = [{ productId: product, productCode: 'SWEEP-1' }];
    ids.push((await insertOrder(db, { status: 'PENDING_PAYMENT', lines, at: base + Math.floor(i / 2) })).id);
  }
  const seen: number[] = [];
  let cursor: { changedAt: number; id: number } | undefined;
  for (;;) {
    const batch = await ordersInStatusSince(db, 'PENDING_PAYMENT', Date.now(), cursor, 2);
    if (batch.length === 0) break;
    seen.push(...batch.map((row) => row.id));
    const last = batch.at(-1)!;
    cursor = { changedAt: last.status_changed_at, id: last.id };
  }
  expect(seen).toEqual(ids);

  if (t.database.engine !== 'sqlite') return;
  // The batch after a cursor, as the code runs it: an index range bounded below by the cursor's time.
  const { db: recorded, statements } = recordingStatements(db);
  await ordersInStatusSince(recorded, 'PENDING_PAYMENT', Date.now(), cursor, 2);
  expect(await planOfStatement(db, statements[0]!)).toMatch(/status_changed_at>\? AND status_changed_at<\?/);
});
