import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createEveryPayGateway,
  GatewayRefusedError,
  GatewayUnavailableError,
  isGatewayOutage,
  type CreatePaymentInput,
  type EveryPayConfig,
  type PaymentGateway,
} from '../../src/modules/payments/index.js';
import { startEveryPayServer, type EveryPayServer, type EveryPayState } from '../helpers/everypay-server.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';

// The EveryPay adapter against a local EveryPay over real HTTP (no database involved).

let everypay: EveryPayServer;
let shop: HttpReceiver;
let gateway: PaymentGateway;
let orderNumber = 0;

const NOW = new Date('2025-03-04T05:06:07.000Z');

function configFor(server: EveryPayServer, overrides: Partial<EveryPayConfig> = {}): EveryPayConfig {
  return {
    apiUrl: server.url,
    apiUsername: server.apiUsername,
    apiSecret: server.apiSecret,
    accountName: server.accountName,
    timeoutMs: 2000,
    ...overrides,
  };
}

function input(overrides: Partial<CreatePaymentInput> = {}): CreatePaymentInput {
  orderNumber += 1;
  return {
    orderReference: `WT${String(orderNumber).padStart(6, '0')}`,
    amountCents: 1230,
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    customerIp: '192.0.2.10',
    locale: 'et',
    returnUrl: 'https://api.shop.example/bank/return-internal?language=et',
    callbackUrl: 'https://api.shop.example/payment/everypay/callback',
    idempotencyKey: `key-${orderNumber}`,
    ...overrides,
  };
}

beforeAll(async () => {
  shop = await startHttpReceiver();
  everypay = await startEveryPayServer({ callbackUrl: `${shop.url}/payment/everypay/callback` });
  gateway = createEveryPayGateway(configFor(everypay), { now: () => NOW });
});

afterEach(async () => {
  everypay.breakApi(null);
  await everypay.releaseCallbacks();
  await everypay.callbacksIdle();
});

afterAll(async () => {
  await everypay.close();
  await shop.close();
});

describe('EveryPay gateway', () => {
  it('creates a one-off payment with Basic auth, the account, the amount in euros with two decimals and the return URL', async () => {
    const order = input({ amountCents: 1230 });
    const created = await gateway.createPayment(order);

    const request = everypay.requests.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/api/v4/payments/oneoff');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${everypay.apiUsername}:${everypay.apiSecret}`).toString('base64')}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.rawBody).toContain('"amount":12.30');
    expect(request.body).toMatchObject({
      api_username: everypay.apiUsername,
      account_name: 'EUR3D1',
      order_reference: order.orderReference,
      timestamp: NOW.toISOString(),
      customer_url: order.returnUrl,
      email: 'buyer@example.com',
      customer_ip: '192.0.2.10',
      locale: 'et',
    });
    expect((request.body as { nonce: string }).nonce).toMatch(/^[0-9a-f]{64}$/);
    // The callback URL lives in EveryPay's merchant portal: it is never sent with a payment.
    expect(request.rawBody).not.toContain('callback');

    const payment = everypay.payment(created.reference)!;
    expect(payment).toMatchObject({ orderReference: order.orderReference, initialCents: 1230, state: 'initial' });
    expect(created.redirect).toEqual({ url: `${everypay.url}/lp`, method: 'GET', fields: { payment_reference: created.reference } });

    const whole = await gateway.createPayment(input({ amountCents: 1000 }));
    expect(everypay.requests.at(-1)!.rawBody).toContain('"amount":10.00');
    expect(everypay.payment(whole.reference)!.initialCents).toBe(1000);
    const cents = await gateway.createPayment(input({ amountCents: 1205 }));
    expect(everypay.requests.at(-1)!.rawBody).toContain('"amount":12.05');
    expect((await gateway.fetchStatus(cents.reference))!.amountCents).toBe(1205);
  });

  it('sends a retried create with the same nonce, which EveryPay refuses instead of making a second payment', async () => {
    const order = input();
    await gateway.createPayment(order);
    const retry = gateway.createPayment({ ...order });
    await expect(retry).rejects.toBeInstanceOf(GatewayRefusedError);
    await expect(retry).rejects.toThrow(/Nonce has already been used/);
    expect(everypay.paymentsFor(order.orderReference)).toHaveLength(1);
    // Another attempt (another key) gets another nonce.
    const other = input();
    await gateway.createPayment(other);
    const [first, second] = everypay.requests.slice(-3).map((r) => (r.body as { nonce: string }).nonce);
    expect(first).toBe(second);
    expect((everypay.requests.at(-1)!.body as { nonce: string }).nonce).not.toBe(first);
  });

  it('maps every EveryPay payment state, fetched with the API username in the query', async () => {
    const expected: Record<EveryPayState, string> = {
      initial: 'pending',
      waiting_for_sca: 'pending',
      waiting_for_3ds_response: 'pending',
      sent_for_processing: 'pending',
      authorised: 'pending',
      settled: 'settled',
      failed: 'failed',
      abandoned: 'abandoned',
      voided: 'voided',
      refunded: 'refunded',
      chargebacked: 'refunded',
    };
    everypay.holdCallbacks();
    for (const [state, mapped] of Object.entries(expected)) {
      const order = input({ amountCents: 4599 });
      const { reference } = await gateway.createPayment(order);
      await everypay.setState(reference, state as EveryPayState);
      const status = await gateway.fetchStatus(reference);
      expect(status, state).toEqual({
        reference,
        orderReference: order.orderReference,
        state: mapped,
        amountCents: 4599,
        refundedCents: state === 'chargebacked' ? 4599 : 0,
        currency: 'EUR',
        ownAccount: true,
        // A chargeback is told from a refund: both are `refunded`.
        chargedBack: state === 'chargebacked',
      });
      const request = everypay.requests.at(-1)!;
      expect(request.method).toBe('GET');
      expect(request.path).toBe(`/api/v4/payments/${reference}`);
      expect(request.query).toEqual({ api_username: everypay.apiUsername });
    }
  });

  it("reads a payment's currency and whether it is on the processing account the shop is set up with", async () => {
    const merchant = await startEveryPayServer({ otherAccounts: { USD3D1: 'USD' } });
    try {
      const euros = createEveryPayGateway(configFor(merchant));
      const dollars = createEveryPayGateway(configFor(merchant, { accountName: 'USD3D1' }));
      const { reference } = await dollars.createPayment(input());
      expect(merchant.requests.at(-1)!.body).toMatchObject({ account_name: 'USD3D1' });
      expect(await dollars.fetchStatus(reference)).toMatchObject({ currency: 'USD', ownAccount: true });
      // The same API user sees the payment, on another of its accounts than the one this shop takes money on.
      expect(await euros.fetchStatus(reference)).toMatchObject({ currency: 'USD', ownAccount: false, amountCents: 1230 });
    } finally {
      await merchant.close();
    }
  });

  it('answers null for a reference EveryPay does not know, and for one that cannot be a reference without asking', async () => {
    expect(await gateway.fetchStatus('f'.repeat(56))).toBeNull();
    const asked = everypay.requests.length;
    expect(await gateway.fetchStatus('../oneoff')).toBeNull();
    expect(await gateway.fetchStatus('')).toBeNull();
    expect(everypay.requests.length).toBe(asked);
  });

  it('refunds part and then the rest of a settled payment, keeping the amount beside the refunded amount', async () => {
    const { reference } = await gateway.createPayment(input({ amountCents: 2500 }));
    await everypay.settle(reference);

    const partial = await gateway.refund(reference, 1000, 'refund-1');
    expect(partial).toMatchObject({ reference, state: 'refunded', amountCents: 2500, refundedCents: 1000 });
    const request = everypay.requests.find((r) => r.path === '/api/v4/payments/refund')!;
    expect(request.rawBody).toContain('"amount":10.00');
    expect(request.body).toMatchObject({ api_username: everypay.apiUsername, payment_reference: reference, timestamp: NOW.toISOString() });

    const rest = await gateway.refund(reference, 1500, 'refund-2');
    expect(rest).toMatchObject({ state: 'refunded', amountCents: 2500, refundedCents: 2500 });
    expect(everypay.payment(reference)!.standingCents).toBe(0);

    await expect(gateway.refund(reference, 1, 'refund-3')).rejects.toBeInstanceOf(GatewayRefusedError);
    await expect(gateway.refund(reference, 500, 'refund-2')).rejects.toThrow(/Nonce has already been used/);
    const unpaid = await gateway.createPayment(input());
    await expect(gateway.refund(unpaid.reference, 100, 'refund-4')).rejects.toThrow(/cannot be refunded/);
  });

  it('counts a 5xx, no answer within the timeout, an answer that is not JSON or not a payment as unavailable', async () => {
    const { reference } = await gateway.createPayment(input());
    // Each with whether it is an outage (every payment's look-up meets it: they pause) or an answer about
    // this payment that cannot be read (a state or amount the shop does not know: the others are asked).
    const breakages = [
      [{ status: 500 }, true],
      [{ status: 503, body: '<html>maintenance</html>' }, true],
      ['bad-json' as const, true],
      [{ status: 200, body: '{"payment_reference": 42}' }, true],
      [
        {
          status: 200,
          body: JSON.stringify({ payment_reference: reference, order_reference: 'WT1', payment_state: 'teleported', initial_amount: 1 }),
        },
        false,
      ],
      [
        {
          status: 200,
          body: JSON.stringify({ payment_reference: 'another', order_reference: 'WT1', payment_state: 'settled', initial_amount: 1 }),
        },
        true,
      ],
      [
        {
          status: 200,
          body: JSON.stringify({ payment_reference: reference, order_reference: 'WT1', payment_state: 'settled', initial_amount: 1.234 }),
        },
        false,
      ],
      [
        {
          status: 200,
          body: JSON.stringify({ payment_reference: reference, order_reference: 'WT1', payment_state: 'settled', initial_amount: -1 }),
        },
        false,
      ],
    ] as const;
    for (const [breakage, outage] of breakages) {
      everypay.breakApi(breakage, 1);
      const failure = await gateway.fetchStatus(reference).catch((err: unknown) => err);
      expect(failure, JSON.stringify(breakage)).toBeInstanceOf(GatewayUnavailableError);
      expect(isGatewayOutage(failure), JSON.stringify(breakage)).toBe(outage);
    }
    everypay.breakApi({ status: 502 }, 1);
    await expect(gateway.createPayment(input())).rejects.toBeInstanceOf(GatewayUnavailableError);
    everypay.breakApi(
      { status: 201, body: '{"payment_reference":"abc","payment_link":"javascript:alert(1)","payment_state":"initial"}' },
      1,
    );
    await expect(gateway.createPayment(input())).rejects.toBeInstanceOf(GatewayUnavailableError);

    const impatient = createEveryPayGateway(configFor(everypay, { timeoutMs: 200 }));
    everypay.breakApi('hang', 1);
    const started = Date.now();
    await expect(impatient.fetchStatus(reference)).rejects.toThrow(/no answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(1500);

    const nowhere = createEveryPayGateway(configFor(everypay, { apiUrl: 'http://127.0.0.1:9' }));
    await expect(nowhere.fetchStatus(reference)).rejects.toBeInstanceOf(GatewayUnavailableError);

    // Repaired, it answers again.
    expect(await gateway.fetchStatus(reference)).toMatchObject({ state: 'pending' });
  });

  it('counts wrong credentials as refused, and never puts the secret in an error', async () => {
    const wrong = createEveryPayGateway(configFor(everypay, { apiSecret: 'not-the-secret' }));
    const failure = await wrong.createPayment(input()).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(GatewayRefusedError);
    expect((failure as GatewayRefusedError).status).toBe(401);
    expect(String((failure as Error).message)).not.toContain('not-the-secret');
    await expect(wrong.fetchStatus('a'.repeat(56))).rejects.toBeInstanceOf(GatewayRefusedError);

    const otherAccount = createEveryPayGateway(configFor(everypay, { accountName: 'EUR3D2' }));
    await expect(otherAccount.createPayment(input())).rejects.toThrow(/refused \(422\).*Account name is invalid/);

    const hidden = await createEveryPayGateway(configFor(everypay, { apiUrl: 'http://127.0.0.1:9' }))
      .fetchStatus('a'.repeat(56))
      .catch((err: unknown) => err);
    expect(JSON.stringify(hidden, Object.getOwnPropertyNames(hidden))).not.toContain(everypay.apiSecret);
  });

  it("tells EveryPay's own 4xx (its error object) from another service's: only EveryPay's says no such payment or refuses the request", async () => {
    // EVERYPAY_API_URL naming another JSON service: its 404s say nothing of any payment.
    const other = await startHttpReceiver();
    try {
      other.respondWith(404, { message: 'Route GET:/api/v4/payments not found', error: 'Not Found', statusCode: 404 });
      const misdirected = createEveryPayGateway(configFor(everypay, { apiUrl: other.url }));
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['fetchStatus', () => misdirected.fetchStatus('a'.repeat(56))],
        ['refund', () => misdirected.refund('a'.repeat(56), 100, 'refund-elsewhere')],
        ['createPayment', () => misdirected.createPayment(input())],
        ['chargeSavedCard', () => misdirected.chargeSavedCard({ ...input(), token: 'tok' })],
      ];
      for (const [what, call] of calls) {
        const failure = await call().catch((err: unknown) => err);
        expect(failure, what).toBeInstanceOf(GatewayRefusedError);
        expect(failure, what).toMatchObject({ status: 404, refusal: 'the-caller' });
        expect((failure as Error).message, what).toContain('check EVERYPAY_API_URL');
      }
      // A 404 whose error object names no code is no more EveryPay's; nor any other 4xx without it.
      other.respondWith(404, { error: { message: 'Not Found' } });
      await expect(misdirected.fetchStatus('a'.repeat(56))).rejects.toMatchObject({ refusal: 'the-caller' });
      for (const status of [400, 405, 422]) {
        other.respondWith(status, { message: 'Method Not Allowed', statusCode: status });
        await expect(misdirected.refund('a'.repeat(56), 100, `refund-${status}`), String(status)).rejects.toMatchObject({
          status,
          refusal: 'the-caller',
          message: expect.stringContaining('check EVERYPAY_API_URL'),
        });
      }
    } finally {
      await other.close();
    }
    // EveryPay's own: no such payment to look up (null), and a refund of one it does not know refused as asked.
    expect(await gateway.fetchStatus('b'.repeat(56))).toBeNull();
    await expect(gateway.refund('b'.repeat(56), 100, 'refund-unknown')).rejects.toMatchObject({ status: 404, refusal: 'what-was-asked' });
  });

  it('reads the payment reference of a callback or a return from the query or the body, and nothing else from them', () => {
    const ref = 'ab12'.repeat(14);
    expect(gateway.referenceOf({ query: { payment_reference: ref, order_reference: 'WT1' }, body: undefined })).toBe(ref);
    expect(gateway.referenceOf({ query: {}, body: { payment_reference: ref, event_name: 'status_updated' } })).toBe(ref);
    expect(gateway.referenceOf({ query: {}, body: `payment_reference=${ref}&order_reference=WT1&event_name=status_updated` })).toBe(ref);
    expect(gateway.referenceOf({ query: { payment_reference: ref }, body: { payment_reference: ref } })).toBe(ref);
    // Two different references, none, or something that is not one.
    expect(gateway.referenceOf({ query: { payment_reference: ref }, body: { payment_reference: 'cd34'.repeat(14) } })).toBeNull();
    expect(gateway.referenceOf({ query: {}, body: undefined })).toBeNull();
    expect(gateway.referenceOf({ query: { payment_reference: ['a', 'b'] }, body: '' })).toBeNull();
    expect(gateway.referenceOf({ query: {}, body: { payment_reference: 42 } })).toBeNull();
    expect(gateway.referenceOf({ query: { payment_reference: '<script>' }, body: null })).toBeNull();
  });
});
