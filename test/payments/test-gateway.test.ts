import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayRefusedError, type PaymentGateway } from '../../src/modules/payments/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { callbacksFor, paymentInput, quietPeriod, TEST_GATEWAY_ON, testGateway } from './test-gateway.fixtures.js';

// The test gateway through HTTP (app.inject) and its adapter: the page, the buttons, the callback,
// idempotency and refunds. The browser's view of the same page: test-gateway-browser.test.ts.

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let t: TestApp;
let receiver: HttpReceiver;
let gateway: PaymentGateway;
beforeAll(async () => {
  receiver = await startHttpReceiver();
  t = await createTestApp({ env: TEST_GATEWAY_ON });
  gateway = testGateway(t);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const pagePath = (url: string) => new URL(url).pathname;
const press = (path: string, payload: string) => t.app.inject({ method: 'POST', url: path, headers: FORM, payload });

async function newPayment(overrides = {}) {
  const input = paymentInput(receiver, overrides);
  const created = await gateway.createPayment(input);
  return { input, created, path: pagePath(created.redirect.url) };
}

describe('the payment page', () => {
  it('shows the order and amount with Pay, Decline and Cancel, marked as a test, under its own policy', async () => {
    const { input, created, path } = await newPayment({ orderReference: 'WT<b>1', amountCents: 123_456 });
    expect(created.redirect).toEqual({
      url: `${t.config.social.publicUrl}/payment/test/pay/${created.reference}`,
      method: 'GET',
      fields: {},
    });
    expect(created.reference).toMatch(/^tgp_[A-Za-z0-9_-]{24}$/);
    const response = await t.app.inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    // No form-action: it would block the shop's return from redirecting on (purchase-browser.test.ts).
    expect(policy).not.toContain('form-action');
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.body).toContain('WT&lt;b&gt;1');
    expect(response.body).not.toContain(input.orderReference);
    expect(response.body).toContain('1234.56 EUR');
    expect(response.body).toMatch(/Test payment page.*No real money/s);
    for (const action of ['pay', 'decline', 'cancel']) expect(response.body).toContain(`name="action" value="${action}"`);
    expect(response.body).not.toMatch(/<script|src=|href="http/);
  });

  it('answers an unknown or malformed reference with a 404 page, for GET and POST', async () => {
    const { created } = await newPayment();
    const other = `tgp_${'A'.repeat(24)}`;
    for (const reference of [other, 'x', `${created.reference}x`, created.reference.toUpperCase(), '%00']) {
      for (const method of ['GET', 'POST'] as const) {
        const response = await t.app.inject({ method, url: `/payment/test/pay/${reference}`, headers: FORM, payload: 'action=pay' });
        expect(response.statusCode, `${method} ${reference}`).toBe(reference === '%00' ? 400 : 404);
        if (reference !== '%00') expect(response.body).toContain('Payment not found');
      }
    }
    expect((await gateway.fetchStatus(created.reference))?.state).toBe('pending');
    expect(await gateway.fetchStatus(other)).toBeNull();
    expect(await gateway.fetchStatus('not a reference')).toBeNull();
  });

  it('refuses a missing, unknown or repeated action with a 400 page and leaves the payment pending', async () => {
    const { created, path } = await newPayment();
    for (const payload of ['', 'action=refund', 'action=pay&action=decline', 'action=toString', 'action=__proto__', 'button=pay']) {
      const response = await press(path, payload);
      expect(response.statusCode, payload).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    const json = await t.app.inject({ method: 'POST', url: path, payload: { action: 1 } });
    expect(json.statusCode).toBe(400);
    const unparsed = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain' }, payload: 'action=pay' });
    expect(unparsed.statusCode).toBe(415);
    const huge = await press(path, `action=pay&pad=${'x'.repeat(5000)}`);
    expect(huge.statusCode).toBe(413);
    expect((await gateway.fetchStatus(created.reference))?.state).toBe('pending');
    expect(callbacksFor(receiver, created.reference)).toEqual([]);
  });
});

describe('a button', () => {
  it('finishes the payment once, sends the shopper back with the references, and posts one callback', async () => {
    const { input, created, path } = await newPayment();
    const response = await press(path, 'action=pay');
    expect(response.statusCode).toBe(303);
    const location = new URL(String(response.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(`${receiver.url}/bank/return-internal`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      language: 'et',
      payment_reference: created.reference,
      order_reference: input.orderReference,
    });
    const callback = await receiver.waitFor((r) => callbacksFor(receiver, created.reference).includes(r));
    expect(callback.method).toBe('POST');
    expect(callback.headers['content-type']).toBe('application/json');
    expect(callback.body).toEqual({
      payment_reference: created.reference,
      order_reference: input.orderReference,
      event_name: 'status_updated',
    });
    expect(gateway.referenceOf({ query: {}, body: callback.body })).toBe(created.reference);
    expect(gateway.referenceOf({ query: Object.fromEntries(location.searchParams), body: undefined })).toBe(created.reference);
    expect(gateway.referenceOf({ query: { payment_reference: 'forged' }, body: {} })).toBeNull();

    // A second press, of any button: the same redirect, nothing changes, no second callback.
    const again = await press(path, 'action=decline');
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(response.headers.location);
    await quietPeriod();
    expect(callbacksFor(receiver, created.reference)).toHaveLength(1);
    expect(await gateway.fetchStatus(created.reference)).toEqual({
      reference: created.reference,
      orderReference: input.orderReference,
      state: 'settled',
      amountCents: 2599,
      refundedCents: 0,
      currency: 'EUR',
      ownAccount: true,
      chargedBack: false,
    });
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain('This payment is finished');
    expect(page.body).not.toContain('name="action"');
  });

  it('decline fails it and cancel abandons it', async () => {
    for (const [action, state] of [
      ['decline', 'failed'],
      ['cancel', 'abandoned'],
    ] as const) {
      const { created, path } = await newPayment();
      expect((await press(path, `action=${action}`)).statusCode).toBe(303);
      expect((await gateway.fetchStatus(created.reference))?.state).toBe(state);
      await receiver.waitFor((r) => callbacksFor(receiver, created.reference).includes(r));
    }
  });

  it('of ten racing presses, exactly one finishes the payment and sends a callback', async () => {
    const { created, path } = await newPayment();
    const actions = ['pay', 'decline', 'cancel'];
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => press(path, `action=${actions[i % 3]}`)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(303));
    await receiver.waitFor((r) => callbacksFor(receiver, created.reference).includes(r));
    await quietPeriod();
    expect(callbacksFor(receiver, created.reference)).toHaveLength(1);
    expect(['settled', 'failed', 'abandoned']).toContain((await gateway.fetchStatus(created.reference))?.state);
  });

  it('retries the callback when the shop answers 500, until it takes it', async () => {
    receiver.respondWith(500, { error: 'busy' });
    try {
      const { created, path } = await newPayment();
      expect((await press(path, 'action=pay')).statusCode).toBe(303);
      await receiver.waitFor((r) => callbacksFor(receiver, created.reference).includes(r));
      receiver.respondWith(200);
      await receiver.waitFor(() => callbacksFor(receiver, created.reference).length === 2, 3000);
      await quietPeriod();
      expect(callbacksFor(receiver, created.reference)).toHaveLength(2);
      expect((await gateway.fetchStatus(created.reference))?.state).toBe('settled');
    } finally {
      receiver.respondWith(200);
    }
  });
});

describe('createPayment', () => {
  it('answers the same payment for the same idempotency key, and refuses the key for another payment', async () => {
    const input = paymentInput(receiver);
    const first = await gateway.createPayment(input);
    const second = await gateway.createPayment(input);
    const racing = await Promise.all(Array.from({ length: 5 }, () => gateway.createPayment(input)));
    expect(second).toEqual(first);
    for (const created of racing) expect(created.reference).toBe(first.reference);
    const rows = await t.database.db
      .selectFrom('test_gateway_payment')
      .select('reference')
      .where('idempotency_key', '=', input.idempotencyKey)
      .execute();
    expect(rows).toHaveLength(1);
    await expect(gateway.createPayment({ ...input, amountCents: 1 })).rejects.toThrow(GatewayRefusedError);
    const other = await gateway.createPayment({ ...input, idempotencyKey: `${input.idempotencyKey}-2` });
    expect(other.reference).not.toBe(first.reference);
  });

  it('refuses what a provider would: no amount, another currency, a URL that is not http(s)', async () => {
    for (const overrides of [
      { amountCents: 0 },
      { amountCents: 12.5 },
      { currency: 'USD' as 'EUR' },
      { returnUrl: 'javascript:alert(1)' },
      { callbackUrl: 'ftp://shop.example/cb' },
      { orderReference: '' },
      { idempotencyKey: '' },
    ]) {
      const error = await gateway.createPayment(paymentInput(receiver, overrides)).catch((e: unknown) => e);
      expect(error, JSON.stringify(overrides)).toBeInstanceOf(GatewayRefusedError);
      expect((error as GatewayRefusedError).status).toBe(422);
    }
  });
});

describe('refund', () => {
  /** The status a refusal carries; anything else thrown (a database error) fails the test. */
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof GatewayRefusedError)) throw error;
        return error.status;
      },
    );

  it('refunds part and then the rest of a settled payment, once per key', async () => {
    const { created, path } = await newPayment({ amountCents: 1000 });
    expect(await refusal(gateway.refund(created.reference, 100, 'early'))).toBe(409);
    await press(path, 'action=pay');
    const partial = await gateway.refund(created.reference, 300, 'r1');
    expect(partial).toMatchObject({ state: 'refunded', amountCents: 1000, refundedCents: 300 });
    expect(await gateway.refund(created.reference, 300, 'r1')).toEqual(partial);
    expect(await refusal(gateway.refund(created.reference, 301, 'r1'))).toBe(409);
    expect(await refusal(gateway.refund(created.reference, 701, 'r2'))).toBe(422);
    expect(await refusal(gateway.refund(created.reference, 0, 'r3'))).toBe(422);
    const full = await gateway.refund(created.reference, 700, 'r2');
    expect(full).toMatchObject({ state: 'refunded', refundedCents: 1000 });
    expect(await refusal(gateway.refund(created.reference, 1, 'r4'))).toBe(422);
    expect(await gateway.fetchStatus(created.reference)).toEqual(full);
  });

  it('refunds the whole amount at once, and refuses unpaid and unknown payments', async () => {
    const { created, path } = await newPayment({ amountCents: 500 });
    await press(path, 'action=pay');
    expect(await gateway.refund(created.reference, 500, 'all')).toMatchObject({ state: 'refunded', refundedCents: 500 });
    const declined = await newPayment();
    await press(declined.path, 'action=decline');
    expect(await refusal(gateway.refund(declined.created.reference, 100, 'd'))).toBe(409);
    expect(await refusal(gateway.refund(`tgp_${'B'.repeat(24)}`, 100, 'u'))).toBe(404);
    const rows = await t.database.db
      .selectFrom('test_gateway_refund')
      .select('idempotency_key')
      .where('idempotency_key', 'in', ['d', 'u', 'early'])
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('the API document', () => {
  it('lists the page and its buttons', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths['/payment/test/pay/{reference}']).sort()).toEqual(['get', 'post']);
  });
});

describe('only this plugin takes form bodies', () => {
  it('another route still answers a form body with 415', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/login', headers: FORM, payload: 'email=a@b.ee&password=x' });
    expect(response.statusCode).toBe(415);
  });
});
