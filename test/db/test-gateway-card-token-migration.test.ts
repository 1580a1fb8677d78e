import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as cardToken from '../../src/db/migrations/2026_12_01_1600_add_test_gateway_card_token.js';
import { GatewayRefusedError, type PaymentGateway } from '../../src/modules/payments/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { paymentInput, TEST_GATEWAY_ON, testGateway } from '../payments/test-gateway.fixtures.js';

// Migration 1600: the test gateway keeps a random token per saved card, where the build before made
// it from the saving payment's reference. The shop holds the tokens of the cards saved before (sealed,
// under a key the migration has no access to), so up keeps those: the card's next renewal still charges.

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

async function paidOnPage(requestToken: boolean): Promise<string> {
  const created = await gateway.createPayment(paymentInput(receiver, requestToken ? { amountCents: 0, requestToken } : {}));
  const pressed = await t.app.inject({ method: 'POST', url: new URL(created.redirect.url).pathname, headers: FORM, payload: 'action=pay' });
  expect(pressed.statusCode).toBe(303);
  return created.reference;
}

const charge = (token: string) =>
  gateway.chargeSavedCard({
    token,
    orderReference: `SUB-${randomUUID().slice(0, 8)}`,
    amountCents: 500,
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    idempotencyKey: randomUUID(),
  });

describe(`migration 2026_12_01_1600_add_test_gateway_card_token on ${engine}`, () => {
  it('gives the cards saved before it the token the shop holds for them, and other payments none', async () => {
    const card = await paidOnPage(true);
    const plain = await paidOnPage(false);
    await cardToken.down(t.database.db);
    await cardToken.up(t.database.db);

    const saved = await gateway.fetchStatus(card);
    expect(saved?.card?.token).toBe(`tgt_${card.slice(4)}`);
    expect(await charge(saved!.card!.token)).toMatchObject({ state: 'settled', amountCents: 500 });
    expect((await gateway.fetchStatus(plain))?.card).toBeUndefined();
    await expect(charge(`tgt_${plain.slice(4)}`)).rejects.toThrow(GatewayRefusedError);
    // A card saved after it gets a random token.
    const after = await gateway.fetchStatus(await paidOnPage(true));
    expect(after?.card?.token).toMatch(/^tgt_/);
    expect(after?.card?.token).not.toBe(`tgt_${after!.reference.slice(4)}`);
  });
});
