import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEveryPayGateway, type PaymentGateway } from '../../src/modules/payments/index.js';
import { startEveryPayServer, type EveryPayServer } from '../helpers/everypay-server.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';

// The local EveryPay's hosted page and callbacks, received by a real HTTP server standing in for the
// shop, and read back through the adapter as the orders module will.

let everypay: EveryPayServer;
let shop: HttpReceiver;
let gateway: PaymentGateway;
let orderNumber = 0;

const callbacks = () => shop.requests.filter((r) => r.url === '/payment/everypay/callback');
const fieldsOf = (body: unknown) => Object.fromEntries(new URLSearchParams(String(body)));

async function newPayment(amountCents = 1999) {
  orderNumber += 1;
  const orderReference = `WT${String(orderNumber).padStart(6, '0')}`;
  const created = await gateway.createPayment({
    orderReference,
    amountCents,
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    customerIp: null,
    locale: 'en',
    returnUrl: 'https://api.shop.example/bank/return-internal?language=en',
    callbackUrl: 'unused',
    idempotencyKey: `pay-${orderNumber}`,
  });
  return { orderReference, reference: created.reference, redirect: created.redirect };
}

beforeAll(async () => {
  shop = await startHttpReceiver();
  everypay = await startEveryPayServer({ callbackUrl: `${shop.url}/payment/everypay/callback` });
  gateway = createEveryPayGateway({
    apiUrl: everypay.url,
    apiUsername: everypay.apiUsername,
    apiSecret: everypay.apiSecret,
    accountName: everypay.accountName,
    timeoutMs: 2000,
  });
});

beforeEach(() => {
  shop.requests.length = 0;
});

afterAll(async () => {
  await everypay.close();
  await shop.close();
});

describe('local EveryPay server', () => {
  it('shows a payment page at the link and sends the shopper back with the references, then posts a callback', async () => {
    const { reference, orderReference, redirect } = await newPayment(1999);
    const page = await fetch(`${redirect.url}?${new URLSearchParams(redirect.fields)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(orderReference);
    expect(html).toContain('19.99');
    expect(html).toMatch(/action="\/lp\/pay"/);

    const back = new URL(await everypay.shopper(reference, 'pay'));
    expect(`${back.origin}${back.pathname}`).toBe('https://api.shop.example/bank/return-internal');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      language: 'en',
      payment_reference: reference,
      order_reference: orderReference,
    });
    expect(gateway.referenceOf({ query: Object.fromEntries(back.searchParams), body: undefined })).toBe(reference);

    const callback = await shop.waitFor((r) => r.url === '/payment/everypay/callback');
    expect(callback.method).toBe('POST');
    expect(callback.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(fieldsOf(callback.body)).toEqual({
      payment_reference: reference,
      order_reference: orderReference,
      event_name: 'status_updated',
    });
    const named = gateway.referenceOf({ query: {}, body: callback.body });
    expect(await gateway.fetchStatus(named!)).toMatchObject({ state: 'settled', amountCents: 1999, orderReference });

    // The page acts once: a second click changes nothing.
    await everypay.shopper(reference, 'decline');
    expect(everypay.payment(reference)!.state).toBe('settled');
  });

  it('declines and cancels through the page as failed and abandoned', async () => {
    const declined = await newPayment();
    const cancelled = await newPayment();
    await everypay.shopper(declined.reference, 'decline');
    await everypay.shopper(cancelled.reference, 'cancel');
    await everypay.callbacksIdle();
    expect((await gateway.fetchStatus(declined.reference))!.state).toBe('failed');
    expect((await gateway.fetchStatus(cancelled.reference))!.state).toBe('abandoned');
    expect(
      callbacks()
        .map((r) => fieldsOf(r.body).event_name)
        .sort(),
    ).toEqual(['abandoned', 'status_updated']);
  });

  it('repeats one callback ten times at once', async () => {
    const { reference } = await newPayment();
    await everypay.settle(reference);
    const sent = await everypay.notify(reference, { times: 10 });
    expect(sent.map((s) => s.status)).toEqual(Array(10).fill(200));
    expect(callbacks().filter((r) => fieldsOf(r.body).payment_reference === reference)).toHaveLength(11);
  });

  it('sends a callback late', async () => {
    const { reference } = await newPayment();
    const started = Date.now();
    const late = everypay.settle(reference, { delayMs: 300 });
    expect(callbacks()).toHaveLength(0);
    await late;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(callbacks()).toHaveLength(1);
  });

  it('holds callbacks and sends them in the reverse order of the changes', async () => {
    const { reference } = await newPayment(3000);
    everypay.holdCallbacks();
    await everypay.settle(reference);
    await everypay.refund(reference, 1000);
    expect(callbacks()).toHaveLength(0);
    await everypay.releaseCallbacks('reversed');
    expect(callbacks().map((r) => fieldsOf(r.body).event_name)).toEqual(['refunded', 'status_updated']);
    expect(await gateway.fetchStatus(reference)).toMatchObject({ state: 'refunded', amountCents: 3000, refundedCents: 1000 });
  });

  it('answers a call only after the callbacks it made, and those held, were answered, on its path only', async () => {
    const { reference } = await newPayment(3000);
    await everypay.settle(reference);
    everypay.answerAfterCallbacks({ path: '/api/v4/payments/refund' });
    const seen = everypay.callbacks.length;
    // A status read on another path is answered at once and leaves the rule in place.
    await gateway.fetchStatus(reference);
    await gateway.refund(reference, 1000, 'refund-1');
    // The refund's callback was answered by the shop before the refund's answer came back.
    expect(everypay.callbacks.slice(seen).map((sent) => [sent.fields.event_name, sent.status])).toEqual([['refunded', 200]]);

    // Held callbacks go out with the call that waits for them: the shopper's return reading the status.
    everypay.holdCallbacks();
    const { reference: other } = await newPayment();
    await everypay.settle(other);
    expect(callbacks().filter((r) => fieldsOf(r.body).payment_reference === other)).toHaveLength(0);
    everypay.answerAfterCallbacks({ path: `/api/v4/payments/${other}` });
    expect(await gateway.fetchStatus(other)).toMatchObject({ state: 'settled' });
    expect(everypay.callbacks.filter((sent) => sent.fields.payment_reference === other).map((sent) => sent.status)).toEqual([200]);
  });

  it('answers a call late with the state of when it was asked, on its path only', async () => {
    const { reference } = await newPayment(3000);
    let answer!: () => void;
    everypay.answerLate(`/api/v4/payments/${reference}`, new Promise<void>((resolve) => (answer = resolve)));
    // Another path is answered at once and leaves the rule in place.
    expect(await gateway.fetchStatus('f'.repeat(56))).toBeNull();
    const path = `/api/v4/payments/${reference}`;
    const before = everypay.requests.filter((request) => request.path === path).length;
    const asked = gateway.fetchStatus(reference);
    let answered = false;
    void asked.then(() => (answered = true));
    while (everypay.requests.filter((request) => request.path === path).length === before)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await everypay.settle(reference);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    answer();
    expect(await asked).toMatchObject({ state: 'pending' });
    // Once only.
    expect(await gateway.fetchStatus(reference)).toMatchObject({ state: 'settled' });
  });

  it('forges callbacks: a reference it never issued, and a real payment of another amount for the same order', async () => {
    const forged = 'e'.repeat(56);
    await everypay.forgeCallback({ payment_reference: forged, order_reference: 'WT999999', event_name: 'status_updated' });
    const callback = callbacks()[0]!;
    const named = gateway.referenceOf({ query: {}, body: callback.body });
    expect(named).toBe(forged);
    expect(await gateway.fetchStatus(named!)).toBeNull();

    const { orderReference } = await newPayment(5000);
    const cheap = everypay.addPayment({ orderReference, amountCents: 1 });
    await everypay.settle(cheap.reference);
    const status = await gateway.fetchStatus(gateway.referenceOf({ query: {}, body: callbacks()[1]!.body })!);
    expect(status).toMatchObject({ orderReference, state: 'settled', amountCents: 1 });
  });

  it('posts JSON callbacks when told to, and none without a callback URL', async () => {
    const receiver = await startHttpReceiver();
    const json = await startEveryPayServer({ callbackUrl: `${receiver.url}/cb`, callbackFormat: 'json' });
    try {
      const payment = json.addPayment({ orderReference: 'WT1', amountCents: 100 });
      await json.fail(payment.reference);
      expect(receiver.requests[0]!.body).toEqual({
        payment_reference: payment.reference,
        order_reference: 'WT1',
        event_name: 'status_updated',
      });
      json.setCallbackUrl(null);
      expect(await json.abandon(payment.reference)).toEqual([]);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await json.close();
      await receiver.close();
    }
  });

  it('refuses a body that breaks the API rules, in its error shape', async () => {
    const auth = `Basic ${Buffer.from(`${everypay.apiUsername}:${everypay.apiSecret}`).toString('base64')}`;
    const post = (body: unknown) =>
      fetch(`${everypay.url}/api/v4/payments/oneoff`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const valid = {
      api_username: everypay.apiUsername,
      account_name: everypay.accountName,
      amount: 1.5,
      order_reference: 'RULES1',
      nonce: 'n-rules-1',
      timestamp: new Date().toISOString(),
      customer_url: 'https://shop.example/back',
    };
    for (const [change, status] of [
      [{ amount: 1.234 }, 422],
      [{ amount: 0 }, 422],
      [{ amount: 'ten' }, 422],
      [{ order_reference: '' }, 422],
      [{ timestamp: 'yesterday' }, 422],
      [{ customer_url: 'shop.example' }, 422],
      [{ email: 'nobody' }, 422],
      [{ api_username: 'someone-else' }, 401],
    ] as const) {
      const response = await post({ ...valid, ...change });
      expect(response.status, JSON.stringify(change)).toBe(status);
      expect(await response.json()).toMatchObject({ error: { code: expect.any(Number), message: expect.any(String) } });
    }
    expect((await post(valid)).status).toBe(201);
    expect((await post({ ...valid, nonce: 'n-rules-2' })).status).toBe(422); // the order reference is taken
    const missingAuth = await fetch(`${everypay.url}/api/v4/payments/oneoff`, { method: 'POST', body: JSON.stringify(valid) });
    expect(missingAuth.status).toBe(401);
  });
});
