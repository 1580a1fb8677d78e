import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Issue 12, point 5: POST /event/session-action took 70,000 rows in 10 s from one anonymous client,
// stored every repeat, and answered an unknown product (422) unlike a hidden one (202), which told
// whether a hidden product exists. Product pages record views into the same table, so they are held
// to the same limits.

let t: TestApp;
const codes = Array.from({ length: 12 }, (_, i) => `SEEN-${i}`);

// Per hour: the buckets refill a token every 3 minutes, so a slow machine's seconds add none mid-test.
beforeAll(async () => {
  t = await createTestApp({ env: { SESSION_ACTION_RATE_LIMIT_PER_IP: '20/1h', SESSION_ACTION_RATE_LIMIT_PER_SESSION: '5/1h' } });
  const db = t.database.db;
  for (const code of codes) await createProduct(db, { code, stores: ['WEB'] });
  await createProduct(db, { code: 'HIDDEN', hiddenWeb: true });
  await createProduct(db, { code: 'INACTIVE', active: false });
  await createProduct(db, { code: 'OUTLET-ONLY', stores: ['WEB2'] });
  await createProduct(db, { code: 'NOT-FOR-BUSINESS', hiddenBusiness: true });
});
afterAll(() => t.close());

const post = (body: object, address = '127.0.0.1', headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/event/session-action',
    remoteAddress: address,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
const rows = (session: string) => t.database.db.selectFrom('session_action').selectAll().where('session_id', 'like', session).execute();

/**
 * Waits until an action of a fresh session from a fresh address is stored: the recorder writes in
 * order, so everything queued before it is stored by then.
 */
let barriers = 0;
async function settled(): Promise<void> {
  barriers += 1;
  const session = `barrier-${barriers}`;
  expect((await post({ session, product: codes[0], actionType: 'VIEW' }, `192.0.2.${barriers}`)).statusCode).toBe(202);
  await expect.poll(async () => (await rows(session)).length, { timeout: 3000 }).toBe(1);
}

describe('limits', () => {
  it('a flood from one address gets 429 after the limit and writes no more rows', async () => {
    const answers: LightMyRequestResponse[] = [];
    for (let i = 0; i < 60; i += 1)
      answers.push(await post({ session: `flood-${i}`, product: codes[i % codes.length], actionType: 'VIEW' }, '198.51.100.7'));
    expect(answers.slice(0, 20).map((a) => a.statusCode)).toEqual(Array(20).fill(202));
    expect(answers.slice(20).every((a) => a.statusCode === 429)).toBe(true);
    expectErrorBody(answers[20]!, 429, 'Too Many Requests');
    expect(Number(answers[20]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await settled();
    expect(await rows('flood-%')).toHaveLength(20);
  });

  it('a session past its limit gets 429 from any address; other sessions go on', async () => {
    const statuses = [];
    for (let i = 0; i < 8; i += 1)
      statuses.push((await post({ session: 'busy-session', product: codes[i], actionType: 'VIEW' }, `203.0.113.${i + 1}`)).statusCode);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    expect((await post({ session: 'calm-session', product: codes[0], actionType: 'VIEW' }, '203.0.113.50')).statusCode).toBe(202);
    await settled();
    expect(await rows('busy-session')).toHaveLength(5);
  });

  it("a session past its limit does not use up its address's: another session at the address goes on", async () => {
    // A runaway tab (or a front-end bug in a loop) behind an office's or a carrier's shared address.
    const statuses = [];
    for (let i = 0; i < 25; i += 1)
      statuses.push((await post({ session: 'runaway', product: codes[i % codes.length], actionType: 'VIEW' }, '203.0.113.90')).statusCode);
    expect(statuses).toEqual([...Array(5).fill(202), ...Array(20).fill(429)]);
    expect((await post({ session: 'neighbour', product: codes[0], actionType: 'VIEW' }, '203.0.113.90')).statusCode).toBe(202);
    await settled();
    expect(await rows('neighbour')).toHaveLength(1);
  });

  it('product pages stop recording views past the same limits, and still answer', async () => {
    const id = (await t.database.db.selectFrom('product').select('id').where('code', '=', codes[1]!).executeTakeFirstOrThrow()).id;
    for (let i = 0; i < 30; i += 1) {
      const page = await t.app.inject({ url: `/product/${id}`, remoteAddress: '198.51.100.99', headers: { 'x-session-id': `pages-${i}` } });
      expect(page.statusCode).toBe(200);
    }
    await settled();
    expect(await rows('pages-%')).toHaveLength(20);
  });
});

describe('duplicates', () => {
  it('the same action of a session on the same product is stored once; another action or product is stored', async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await post({ session: 'twice', product: codes[2], actionType: 'ADD_TO_BASKET' }, '203.0.113.60')).statusCode).toBe(202);
    expect((await post({ session: 'twice', product: codes[2], actionType: 'VIEW' }, '203.0.113.60')).statusCode).toBe(202);
    expect((await post({ session: 'twice', product: codes[3], actionType: 'ADD_TO_BASKET' }, '203.0.113.60')).statusCode).toBe(202);
    await settled();
    const stored = (await rows('twice')).map((row) => `${row.action_type} ${row.product_code}`).sort();
    expect(stored).toEqual([`ADD_TO_BASKET ${codes[2]}`, `ADD_TO_BASKET ${codes[3]}`, `VIEW ${codes[2]}`]);
  });
});

describe('products the caller cannot see', () => {
  // What differs between any two answers anyway.
  const PER_REQUEST = ['x-request-id', 'action-time', 'date'];
  const shape = (response: LightMyRequestResponse) => ({
    status: response.statusCode,
    body: response.body,
    headers: Object.fromEntries(Object.entries(response.headers).filter(([name]) => !PER_REQUEST.includes(name))),
  });

  it('hidden, inactive, other-store and unknown codes are answered byte for byte like a visible one, and only that one is stored', async () => {
    const answers = new Map<string, ReturnType<typeof shape>>();
    for (const product of [codes[4]!, 'HIDDEN', 'INACTIVE', 'OUTLET-ONLY', 'NO-SUCH-PRODUCT']) {
      answers.set(product, shape(await post({ session: `probe-${product}`, product, actionType: 'VIEW' }, '203.0.113.70')));
    }
    const visible = answers.get(codes[4]!)!;
    expect(visible.status).toBe(202);
    for (const [product, answer] of answers) expect(answer, product).toEqual(visible);
    await settled();
    expect((await rows('probe-%')).map((row) => row.product_code)).toEqual([codes[4]]);
  });

  it("follows the caller's audience: a business customer's action on a product hidden from business is not stored", async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const authorization = `Bearer ${business.token}`;
    const hidden = await post({ session: 'biz-1', product: 'NOT-FOR-BUSINESS', actionType: 'VIEW' }, '203.0.113.80', { authorization });
    const visible = await post({ session: 'biz-2', product: 'HIDDEN', actionType: 'VIEW' }, '203.0.113.80', { authorization });
    expect(shape(hidden)).toEqual(shape(visible));
    await settled();
    expect((await rows('biz-%')).map((row) => row.product_code)).toEqual(['HIDDEN']);
  });
});
