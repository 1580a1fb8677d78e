import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { stockedBook } from '../orders/processing-helpers.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';

// A date-time the schema's format takes is one the routes can read: RFC 3339 (and ajv's format)
// allows a leap second (23:59:60) and an offset of hours alone (+03), which Date.parse reads as NaN.
// The routes turn a date-time into milliseconds with Date.parse: NaN reached the database, which
// PostgreSQL refused (a 500) and SQLite stored as nothing (the back office's report was lost).

let t: TestApp;
let key: string;
beforeAll(async () => ({ t, key } = await createBackOfficeApp()));
afterAll(() => t?.close());

const UNREADABLE = ['2026-12-31T23:59:60Z', '2026-11-29T12:00:00+03'];

describe('a date-time Date.parse cannot read', () => {
  it.each(UNREADABLE)('%s in a body is a 422 and changes nothing (the back office status report)', async (createdAt) => {
    const book = await stockedBook(t.database.db, 5);
    const order = await insertOrder(t.database.db, { status: 'PENDING_PROCESSING', lines: [book] });
    const before = await t.database.db.selectFrom('customer_order').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${order.code}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'IN_PROGRESS', createdAt },
    });
    expect(expectFieldErrors(response)).toEqual(['createdAt']);
    const after = await t.database.db.selectFrom('customer_order').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it.each(UNREADABLE)('%s in a query is a 400 (the order feed)', async (updatedSince) => {
    const response = await t.app.inject({
      url: `/admin/orders?updatedSince=${encodeURIComponent(updatedSince)}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(expectErrorBody(response, 400, 'Bad Request').message).toContain('updatedSince');
  });
});
