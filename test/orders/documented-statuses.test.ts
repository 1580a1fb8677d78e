import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { payOnTestGateway, placeOrder } from './purchase-helpers.js';

// An order's status and its payment's state were documented as bare strings: a front-end that
// shows each status as a label of its own had no way to learn them but to wait for orders to
// reach each one (PENDING_NAV_PROCESSING, say). The document now lists every value with what it
// means, and what the order routes answer is one of them.

const STATUSES = [
  'NEW',
  'PENDING_PAYMENT',
  'PENDING_PROCESSING',
  'PROCESSING',
  'PENDING_NAV_PROCESSING',
  'COMPLETED',
  'PAYMENT_FAILED',
  'FAILED',
  'CANCELLED',
];
const PAYMENT_STATES = ['creating', 'pending', 'settled', 'failed', 'abandoned', 'voided', 'refunded'];

interface SchemaNode {
  anyOf?: SchemaNode[];
  enum?: unknown[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: SchemaNode }> }> }>> };

/** The values a documented union of literals (and null) takes. */
const valuesOf = (node: SchemaNode | undefined): unknown[] => (node?.anyOf ?? []).flatMap((branch) => branch.enum ?? []);

let t: TestApp;
let shop: Shop;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
});
afterAll(() => t.close());

const answerSchema = (path: string, method: string) => doc.paths[path]![method]!.responses['200']!.content!['application/json']!.schema;

describe('the statuses the order routes document', () => {
  it('are every status of an order, each said what it means, in the order, its history and the list', () => {
    const order = answerSchema('/order/{code}', 'get');
    expect(valuesOf(order.properties!.status)).toEqual(STATUSES);
    for (const status of STATUSES) expect(order.properties!.status!.description).toContain(`${status}: `);
    expect(valuesOf(order.properties!.statusHistory!.items!.properties!.status)).toEqual(STATUSES);
    expect(valuesOf(answerSchema('/order', 'get').items!.properties!.status)).toEqual(STATUSES);
    expect(valuesOf(answerSchema('/bank/payment-result', 'post').properties!.order!.properties!.status)).toEqual(STATUSES);
  });

  it("are every state of the order's payment, or null", () => {
    const payment = answerSchema('/order/{code}', 'get').properties!.payment!.properties!.state;
    expect(valuesOf(payment)).toEqual([...PAYMENT_STATES, null]);
    expect(payment!.description).toContain('settled: paid');
  });

  it('include what a paid order answers', async () => {
    const book = await stockedBook(t, shop, 5);
    const placed = await placeOrder(t, shop, {}, [[book, 1]], { form: { paymentMethodId: 'TEST_GATEWAY' }, startPayment: false });
    await payOnTestGateway(t, placed.path);
    const response = await t.app.inject({ method: 'GET', url: `/order/${placed.code}?checksum=${placed.checksum}` });
    expect(response.statusCode, response.body).toBe(200);
    const order = response.json() as { status: string; payment: { state: string }; statusHistory: Array<{ status: string }> };
    expect(order.payment.state).toBe('settled');
    expect(STATUSES).toContain(order.status);
    expect(order.statusHistory.map((change) => change.status)).toEqual(
      expect.arrayContaining(['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING']),
    );
    for (const change of order.statusHistory) expect(STATUSES).toContain(change.status);
  });
});
