import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentGateway } from '../../src/modules/payments/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { paymentInput, TEST_GATEWAY_ON, testGateway } from './test-gateway.fixtures.js';

// A merchant-initiated charge of a saved card (a subscription's renewal) has no shopper and so no
// return URL. Its page (at the same address as any payment's, named by its reference) answered 500
// for GET and for a button, as it built the link back to the shop from an empty URL.

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

/** A card saved by a card check paid on its page, then charged without the shopper. */
async function savedCardCharge() {
  const check = await gateway.createPayment(paymentInput(receiver, { amountCents: 0, requestToken: true }));
  const paid = await t.app.inject({ method: 'POST', url: new URL(check.redirect.url).pathname, headers: FORM, payload: 'action=pay' });
  expect(paid.statusCode).toBe(303);
  const token = (await gateway.fetchStatus(check.reference))!.card!.token;
  return gateway.chargeSavedCard({
    token,
    orderReference: `SUB-${randomUUID().slice(0, 8)}`,
    amountCents: 999,
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    idempotencyKey: randomUUID(),
  });
}

describe('the page of a saved-card charge', () => {
  it('shows the charge without buttons or a link back, and a press leaves it as it is', async () => {
    const charged = await savedCardCharge();
    const path = `/payment/test/pay/${charged.reference}`;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('9.99 EUR');
    expect(page.body).toContain('nothing to press');
    expect(page.body).not.toMatch(/href=|<form/);

    const pressed = await t.app.inject({ method: 'POST', url: path, headers: FORM, payload: 'action=decline' });
    expect(pressed.statusCode, pressed.body).toBe(200);
    expect(pressed.body).toContain('nothing to press');
    expect(pressed.headers.location).toBeUndefined();
    expect((await gateway.fetchStatus(charged.reference))!.state).toBe('settled');
  });
});
