import { randomUUID } from 'node:crypto';
import { createTestGateway, type CreatePaymentInput, type PaymentGateway } from '../../src/modules/payments/index.js';
import type { HttpReceiver } from '../helpers/http-receiver.js';
import type { TestApp } from '../helpers/test-app.js';

/** TEST_GATEWAY on, as the demo has it. */
export const TEST_GATEWAY_ON = { TEST_GATEWAY: 'on' };

/** The adapter the shop would use, its page at `publicUrl` (the listening app's origin in browser tests). */
export function testGateway(t: TestApp, publicUrl = t.config.social.publicUrl): PaymentGateway {
  return createTestGateway(t.database, { publicUrl, basePath: t.config.basePath });
}

/** A payment whose browser returns to, and whose callbacks go to, the receiver (the shop's stand-in). */
export function paymentInput(receiver: HttpReceiver, overrides: Partial<CreatePaymentInput> = {}): CreatePaymentInput {
  return {
    orderReference: `WT${Math.floor(Math.random() * 1e6)
      .toString()
      .padStart(6, '0')}`,
    amountCents: 2599,
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    customerIp: '127.0.0.1',
    locale: 'et',
    returnUrl: `${receiver.url}/bank/return-internal?language=et`,
    callbackUrl: `${receiver.url}/payment/test/callback`,
    idempotencyKey: randomUUID(),
    ...overrides,
  };
}

/** The callbacks the receiver got for one payment. */
export const callbacksFor = (receiver: HttpReceiver, reference: string) =>
  receiver.requests.filter(
    (r) => r.url === '/payment/test/callback' && (r.body as { payment_reference?: string }).payment_reference === reference,
  );

/** Long enough for a second callback to have come if one were sent (the first retry waits 200 ms). */
export const quietPeriod = () => new Promise((resolve) => setTimeout(resolve, 400));
