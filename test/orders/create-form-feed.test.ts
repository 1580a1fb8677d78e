import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { until } from '../helpers/lock-waits.js';
import { placeCardOrder } from './everypay-helpers.js';
import { startCardShop, stockedBook, type CardShop } from './processing-helpers.js';

// GET /admin/orders and the start of a card payment (GET /bank/create-form) that EveryPay answers
// slowly. The order's move to PENDING_PAYMENT commits before EveryPay is asked; what EveryPay answers
// changes the order's document again (the payment's reference and state, or the order back in NEW when
// EveryPay could not make the payment), and that change is made only once EveryPay answered. A back
// office walking the feed by cursor meanwhile passed the order and a change made after it: the order's
// later change must come after that cursor, or the back office keeps the copy without the payment (its
// reference unknown, the payment "creating") or a PENDING_PAYMENT order that is back in NEW.

const SETTLE_MS = 1000;
const ONEOFF = '/api/v4/payments/oneoff';
let s: CardShop;
let key: string;
beforeAll(async () => {
  // A hanging EveryPay fails a start after 2.5 s: longer than a settle, as the default 10 s is longer than the default 5 s.
  s = await startCardShop({ ORDER_FEED_SETTLE_MS: String(SETTLE_MS), EVERYPAY_TIMEOUT_MS: '2500' });
  key = await createApiKey(s.t.database.db, 'back-office', Date.now());
});
afterAll(() => s?.close());

const settled = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 100));
type Document = { code: string; status: string; payment: { reference: string | null; state: string | null } };

/**
 * A card order's create-form, asked while EveryPay holds its answer to the one-off (`hold` makes it do
 * so); while it waits, another order changes and a back office's walk of the feed passes both. Answers
 * create-form's answer, the walk's first pages, and its pages after its cursor once everything settled.
 */
async function walkWhileStarting(hold: () => () => void) {
  const since = encodeURIComponent(new Date().toISOString());
  let cursor: string | undefined;
  const poll = async () => {
    const seen: Document[] = [];
    for (let step = 0; step < 10; step += 1) {
      const after = cursor === undefined ? '' : `&after=${cursor}`;
      const response = await s.t.app.inject({
        url: `/admin/orders?updatedSince=${since}&per-page=1${after}`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      seen.push(...(response.json() as Document[]));
      const next = response.headers['x-next-cursor'];
      if (next === undefined) break;
      cursor = String(next);
    }
    return seen;
  };
  const order = await placeCardOrder(s);
  const asked = () => s.everypay.requests.filter((request) => request.path === ONEOFF).length;
  const before = asked();
  const answer = hold();
  const starting = s.t.app.inject({ method: 'GET', url: order.path });
  await until("create-form's call to EveryPay", () => asked() > before);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const other = await insertOrder(s.t.database.db, { status: 'PENDING_PROCESSING', lines: [await stockedBook(s.t.database.db, 5)] });
  await s.t.drainJobs();
  await settled();
  const first = await poll();
  answer();
  const started = await starting;
  await settled();
  return { order, other, started, first, later: await poll() };
}

describe('GET /admin/orders after a create-form that EveryPay answered slowly', () => {
  it('shows the payment EveryPay made, with its reference, to a walk whose cursor passed a change made meanwhile', async () => {
    let release!: () => void;
    const { order, other, started, first, later } = await walkWhileStarting(() => {
      s.everypay.answerLate(ONEOFF, new Promise<void>((resolve) => (release = resolve)));
      return () => release();
    });
    expect(first.map((one) => one.code)).toEqual([order.code, other.code]);
    expect(first[0]).toMatchObject({ status: 'PENDING_PAYMENT', payment: { reference: null, state: 'creating' } });
    expect(started.statusCode, started.body).toBe(200);
    const reference = (started.json() as { fields: Record<string, string> }).fields.payment_reference;
    expect(later).toEqual([
      expect.objectContaining({
        code: order.code,
        status: 'PENDING_PAYMENT',
        payment: expect.objectContaining({ reference, state: 'pending' }),
      }),
    ]);
  });

  it('shows the order back in NEW when EveryPay did not answer, to a walk whose cursor passed a change made meanwhile', async () => {
    const { order, other, started, first, later } = await walkWhileStarting(() => {
      s.everypay.breakApi('hang', 1, ONEOFF);
      return () => undefined;
    });
    expect(first.map((one) => one.code)).toEqual([order.code, other.code]);
    expect(first[0]).toMatchObject({ status: 'PENDING_PAYMENT' });
    expect(started.statusCode, started.body).toBe(503);
    expect(later).toEqual([expect.objectContaining({ code: order.code, status: 'NEW' })]);
  });
});
