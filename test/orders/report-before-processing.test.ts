import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import type { TestApp } from '../helpers/test-app.js';
import { cardPayment, orderStatus, shopperReturns, startCardShop, type CardShop } from './processing-helpers.js';

// The back office reads the feed, which lists a paid order before its processing job ran (a worker
// behind), and reports its status and time. Without a back office to hand it to
// (BACKOFFICE_ORDERS_URL unset), processing then parks the order in PENDING_NAV_PROCESSING to wait
// for that report, which came already.

let s: CardShop;
let t: TestApp;
let key: string;
beforeAll(async () => {
  s = await startCardShop();
  t = s.t;
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(() => s?.close());

describe('the back office reports a paid order before it was processed', () => {
  it('completes the order once processed, as a report after processing does', async () => {
    const order = await cardPayment(s);
    await s.everypay.settle(order.reference);
    await shopperReturns(s, order);
    expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_PROCESSING');
    const report = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${order.code}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'Released', createdAt: '2026-11-24T08:15:00Z' },
    });
    expect(report.statusCode, report.body).toBe(200);
    expect(report.json()).toMatchObject({ status: 'PENDING_PROCESSING', backOffice: { status: 'Released' } });
    await t.drainJobs();
    expect(await orderStatus(t.database.db, order.id)).toBe('COMPLETED');
    const history = await t.database.db.selectFrom('order_status_change').select('to_status').where('order_id', '=', order.id).execute();
    expect(history.map((change) => change.to_status)).not.toContain('PENDING_NAV_PROCESSING');
  });
});
