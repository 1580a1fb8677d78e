import { afterAll, beforeAll, expect, it } from 'vitest';
import { STATUS_CHANGES_SHOWN } from '../../src/modules/orders/order.schemas.js';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import { latestStatusChanges } from '../../src/modules/orders/orders.repository.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// GET /order/{code} shows an order's newest STATUS_CHANGES_SHOWN status changes, oldest first, and
// says whether older ones were left out. They are read newest first along the order's index, one
// more than shown, however many the order has: before, the view loaded every change of the order.

let t: TestApp;
let customer: TestCustomer;
let productId: number;
beforeAll(async () => {
  t = await createTestApp();
  customer = await createCustomer(t.database.db);
  productId = await createProduct(t.database.db, { code: 'HISTORY-1' });
});
afterAll(() => t.close());

const base = Date.now() - 3_600_000;

/** A NEW order of the customer moved back and forth (NEW, PENDING_PAYMENT) `moves` times, a millisecond apart. */
async function orderWithChanges(moves: number) {
  const db = t.database.db;
  const lines = [{ productId, productCode: 'HISTORY-1' }];
  const order = await insertOrder(db, { status: 'NEW', lines, clientAccountId: customer.clientAccountId, at: base });
  for (let i = 1; i <= moves; i += 1) {
    const [from, to] = i % 2 === 1 ? (['NEW', 'PENDING_PAYMENT'] as const) : (['PENDING_PAYMENT', 'NEW'] as const);
    const moved = await db.transaction().execute((trx) => moveOrder(trx, { orderId: order.id, from, to, cause: 'test', now: base + i }));
    expect(moved).toBe(true);
  }
  return order;
}

async function shownHistory(code: string) {
  const response = await t.app.inject({ method: 'GET', url: `/order/${code}`, headers: { authorization: `Bearer ${customer.token}` } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { statusHistory: Array<{ status: string; at: string }>; olderStatusChangesOmitted: boolean };
}

it('shows the newest changes of an order with more, oldest first, and says older ones were left out', async () => {
  const moves = STATUS_CHANGES_SHOWN + 10;
  const order = await orderWithChanges(moves);
  const shown = await shownHistory(order.code);
  expect(shown.olderStatusChangesOmitted).toBe(true);
  // The changes moves - 49 .. moves, the last one PENDING_PAYMENT -> NEW (moves is even).
  expect(shown.statusHistory.map((change) => change.at)).toEqual(
    Array.from({ length: STATUS_CHANGES_SHOWN }, (_, i) => new Date(base + moves - STATUS_CHANGES_SHOWN + 1 + i).toISOString()),
  );
  expect(shown.statusHistory.at(-1)!.status).toBe('NEW');
  expect(shown.statusHistory.at(-2)!.status).toBe('PENDING_PAYMENT');
});

it('shows every change of an order with exactly as many as shown, and says nothing was left out', async () => {
  // The fixture's first change and the moves.
  const order = await orderWithChanges(STATUS_CHANGES_SHOWN - 1);
  const shown = await shownHistory(order.code);
  expect(shown.olderStatusChangesOmitted).toBe(false);
  expect(shown.statusHistory).toHaveLength(STATUS_CHANGES_SHOWN);
  expect(shown.statusHistory[0]).toEqual({ status: 'NEW', at: new Date(base).toISOString() });
});

it('reads them newest first along the order index, without sorting the order changes', async () => {
  const order = await orderWithChanges(3);
  const { db: recorded, statements } = recordingStatements(t.database.db);
  await latestStatusChanges(recorded, order.id, STATUS_CHANGES_SHOWN);
  const plan = await planOfStatement(t.database.db, statements[0]!);
  // One statement, asking one row more than shown: whether older ones were left out.
  expect(statements).toHaveLength(1);
  expect(statements[0]!.sql).toMatch(/order by "id" desc limit/);
  expect(statements[0]!.parameters.at(-1)).toBe(STATUS_CHANGES_SHOWN + 1);
  if (t.database.engine === 'sqlite') {
    expect(plan).toMatch(/SEARCH order_status_change USING INDEX order_status_change_order_idx \(order_id=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  } else {
    expect(plan).toMatch(/Limit[\s\S]*Index Scan Backward using order_status_change_order_idx/);
    expect(plan).not.toMatch(/Sort/);
  }
});
