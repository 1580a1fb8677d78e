import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayRefusedError, type PaymentGateway, type SavedCardChargeInput } from '../../src/modules/payments/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { paymentInput, TEST_GATEWAY_ON, testGateway } from './test-gateway.fixtures.js';

// The test gateway's saved cards: a payment that requests a token saves the card when it is paid on
// its page, and a merchant-initiated charge names the token. The token was the reference's characters
// after `tgt_`, and the reference is in the page's URL, so anyone who saw it could charge the card.

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

/** A card check (nothing taken, the card saved) or a plain payment, pressed on its page over HTTP. */
async function paidOnPage(action: 'pay' | 'decline', requestToken: boolean) {
  const created = await gateway.createPayment(paymentInput(receiver, requestToken ? { amountCents: 0, requestToken } : {}));
  const pressed = await t.app.inject({
    method: 'POST',
    url: new URL(created.redirect.url).pathname,
    headers: FORM,
    payload: `action=${action}`,
  });
  expect(pressed.statusCode).toBe(303);
  return { reference: created.reference, status: await gateway.fetchStatus(created.reference) };
}

const charge = (token: string): SavedCardChargeInput => ({
  token,
  orderReference: `SUB-${randomUUID().slice(0, 8)}`,
  amountCents: 999,
  currency: 'EUR',
  customerEmail: 'buyer@example.com',
  idempotencyKey: randomUUID(),
});

/** The status a refusal carries, and that the refused charge made no payment; anything else thrown fails the test. */
async function refused(input: SavedCardChargeInput): Promise<number | undefined> {
  const status = await gateway.chargeSavedCard(input).then(
    () => undefined,
    (error: unknown) => {
      if (!(error instanceof GatewayRefusedError)) throw error;
      return error.status;
    },
  );
  expect(await gateway.findPayment(input.orderReference)).toBeNull();
  return status;
}

describe('a card the test gateway saved', () => {
  it('is charged by the random token its status shows, never by one made from the reference its page shows', async () => {
    const { reference, status } = await paidOnPage('pay', true);
    const token = status?.card?.token;
    expect(token).toMatch(/^tgt_[A-Za-z0-9_-]{24}$/);
    expect(token).not.toBe(`tgt_${reference.slice(4)}`);

    expect(await refused(charge(`tgt_${reference.slice(4)}`))).toBe(422);
    expect(await refused(charge(`tgt_${'A'.repeat(24)}`))).toBe(422);
    expect(await gateway.chargeSavedCard(charge(token!))).toMatchObject({ state: 'settled', amountCents: 999 });
    // Another card saved gets a token of its own.
    const other = await paidOnPage('pay', true);
    expect(other.status?.card?.token).toMatch(/^tgt_/);
    expect(other.status?.card?.token).not.toBe(token);
  });

  it('has no token while its card check is declined, and a payment that saves no card has none', async () => {
    const declined = await paidOnPage('decline', true);
    expect(declined.status).toMatchObject({ state: 'failed' });
    expect(declined.status?.card).toBeUndefined();
    const [row] = await t.database.db
      .selectFrom('test_gateway_payment')
      .select('card_token')
      .where('reference', '=', declined.reference)
      .execute();
    expect(await refused(charge(row!.card_token!))).toBe(422);

    const plain = await paidOnPage('pay', false);
    expect(plain.status).toMatchObject({ state: 'settled' });
    expect(plain.status?.card).toBeUndefined();
    expect(await refused(charge(`tgt_${plain.reference.slice(4)}`))).toBe(422);
  });
});
