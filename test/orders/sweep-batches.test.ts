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
  let cursor: { at: number; id: number } | undefined;
  for (;;) {
    const batch = await ordersInStatusSince(db, 'PENDING_PAYMENT', 'status_changed_at', Date.now(), cursor, 2);
    if (batch.length === 0) break;
    seen.push(...batch.map((row) => row.id));
    const last = batch.at(-1)!;
    cursor = { at: last.at, id: last.id };
  }
  expect(seen).toEqual(ids);

  if (t.database.engine !== 'sqlite') return;
  // The batch after a cursor, as the code runs it: an index range bounded below by the cursor's time.
  const { db: recorded, statements } = recordingStatements(db);
  await ordersInStatusSince(recorded, 'PENDING_PAYMENT', 'status_changed_at', Date.now(), cursor, 2);
  expect(await planOfStatement(db, statements[0]!)).toMatch(/status_changed_at>\? AND status_changed_at<\?/);
});

it('walks NEW orders by their checkout time, from the cursor on, whatever their last status change', async () => {
  const db = t.database.db;
  const product = await createProduct(db, { code: 'SWEEP-2' });
  const base = Date.now() - 3_600_000;
  const lines = [{ productId: product, productCode: 'SWEEP-2' }];
  const placed = [];
  for (let i = 0; i < 3; i += 1) placed.push((await insertOrder(db, { status: 'NEW', lines, at: base + i })).id);
  // The first one's payment start failed just now: its last change is recent, its checkout is not.
  await db.updateTable('customer_order').set({ status_changed_at: Date.now() }).where('id', '=', placed[0]!).execute();
  const first = await ordersInStatusSince(db, 'NEW', 'created_at', Date.now() - 60_000, undefined, 2);
  expect(first.map((row) => row.id)).toEqual(placed.slice(0, 2));
  const cursor = { at: first[1]!.at, id: first[1]!.id };
  expect((await ordersInStatusSince(db, 'NEW', 'created_at', Date.now() - 60_000, cursor, 2)).map((row) => row.id)).toEqual([placed[2]]);

  if (t.database.engine !== 'sqlite') return;
  const { db: recorded, statements } = recordingStatements(db);
  await ordersInStatusSince(recorded, 'NEW', 'created_at', Date.now(), cursor, 2);
  expect(await planOfStatement(db, statements[0]!)).toMatch(
    /customer_order_status_created_idx \(status=\? AND created_at>\? AND created_at<\?\)/,
  );
});
