import { randomBytes } from 'node:crypto';
import type { DatabaseHandle } from '../../../db/database.js';
import { systemClock, type Clock } from '../../../infra/clock.js';
import { isHttpUrl } from '../../../infra/env.js';
import {
  GatewayRefusedError,
  type CreatedPayment,
  type CreatePaymentInput,
  type GatewayRequest,
  type PaymentGateway,
  type PaymentStatus,
  type SavedCardChargeInput,
} from '../gateway.js';
import {
  addRefund,
  findPayment,
  findPaymentByCardToken,
  findPaymentByOrderReference,
  findRefund,
  finishPendingPayment,
  insertPaymentOnce,
  insertRefundOnce,
  type TestGatewayPayment,
} from './test-gateway.repository.js';

/** Where the gateway's page is reached: the service's public URL and the API's base path. */
export interface TestGatewayConfig {
  publicUrl: string;
  basePath: string;
}

/** `tgp_` and 24 characters of 18 random bytes: the page's only key, so it must not be guessable. */
const REFERENCE = /^tgp_[A-Za-z0-9_-]{24}$/;

export const isTestGatewayReference = (value: unknown): value is string => typeof value === 'string' && REFERENCE.test(value);

const newReference = () => `tgp_${randomBytes(18).toString('base64url')}`;

/**
 * A saved card's token: `tgt_` and 24 characters of 18 random bytes, kept on the payment that saved the
 * card. It charges the card without the shopper, so nothing the shopper's browser sees may derive it.
 */
const newCardToken = () => `tgt_${randomBytes(18).toString('base64url')}`;

/** The path of a payment's page under the API's base path (test-gateway.routes.ts serves it). */
export const testGatewayPagePath = (reference: string) => `/payment/test/pay/${reference}`;

/**
 * The test gateway as the shop sees a provider: the shop creates a payment and sends the shopper's
 * browser to its page (served by this service, test-gateway.routes.ts), where Pay, Decline or
 * Cancel finish it, send the shopper back to the return URL and post a callback. No money moves.
 */
export function createTestGateway(database: DatabaseHandle, config: TestGatewayConfig, clock: Clock = systemClock): PaymentGateway {
  const db = database.db;
  const refuse = (status: number, message: string) => new GatewayRefusedError('test', status, message);

  return {
    name: 'test',

    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      const problem = inputProblem(input);
      if (problem !== undefined) throw refuse(422, problem);
      const payment = await insertPaymentOnce(db, {
        reference: newReference(),
        order_reference: input.orderReference,
        amount_cents: input.amountCents,
        currency: input.currency,
        return_url: input.returnUrl,
        callback_url: input.callbackUrl,
        idempotency_key: input.idempotencyKey,
        customer_email: input.customerEmail,
        request_token: input.requestToken === true,
        card_token: input.requestToken === true ? newCardToken() : null,
        created_at: clock.now(),
      });
      // A provider answers a repeated key with the payment it made, and refuses it for another one.
      if (payment.order_reference !== input.orderReference || payment.amount_cents !== input.amountCents) {
        throw refuse(409, 'the idempotency key was used for another payment');
      }
      const url = `${config.publicUrl}${config.basePath}${testGatewayPagePath(payment.reference)}`;
      return { reference: payment.reference, redirect: { url, method: 'GET', fields: {} } };
    },

    async fetchStatus(reference: string): Promise<PaymentStatus | null> {
      if (!isTestGatewayReference(reference)) return null;
      const payment = await findPayment(db, reference);
      return payment === undefined ? null : statusOf(payment);
    },

    referenceOf(request: GatewayRequest): string | null {
      const fromBody = isRecord(request.body) ? request.body.payment_reference : undefined;
      const reference = fromBody ?? request.query.payment_reference;
      return isTestGatewayReference(reference) ? reference : null;
    },

    async chargeSavedCard(input: SavedCardChargeInput): Promise<PaymentStatus> {
      const problem = inputProblem({ ...input, returnUrl: 'http://charge.invalid/', callbackUrl: 'http://charge.invalid/' });
      if (problem !== undefined) throw refuse(422, problem);
      // Only a token it issued, of a card whose saving payment settled.
      const saving = await findPaymentByCardToken(db, input.token);
      if (saving?.state !== 'settled') throw refuse(422, 'unknown card token');
      const now = clock.now();
      // No shopper and no page: the charge is made in the request and answered settled.
      const payment = await insertPaymentOnce(db, {
        reference: newReference(),
        order_reference: input.orderReference,
        amount_cents: input.amountCents,
        currency: input.currency,
        return_url: '',
        callback_url: '',
        idempotency_key: input.idempotencyKey,
        customer_email: input.customerEmail,
        request_token: false,
        card_token: null,
        created_at: now,
      });
      if (payment.order_reference !== input.orderReference || payment.amount_cents !== input.amountCents) {
        throw refuse(409, 'the idempotency key was used for another payment');
      }
      await finishPendingPayment(db, payment.reference, 'settled', now);
      return statusOf((await findPayment(db, payment.reference))!);
    },

    async findPayment(orderReference: string): Promise<PaymentStatus | null> {
      const payment = await findPaymentByOrderReference(db, orderReference);
      return payment === undefined ? null : statusOf(payment);
    },

    async refund(reference: string, amountCents: number, idempotencyKey: string): Promise<PaymentStatus> {
      if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw refuse(422, 'the refund amount must be a positive number of cents');
      if (idempotencyKey === '' || idempotencyKey.length > 200) throw refuse(422, 'the idempotency key must be 1 to 200 characters');
      if (!isTestGatewayReference(reference)) throw refuse(404, 'unknown payment');
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        if ((await findPayment(trx, reference)) === undefined) throw refuse(404, 'unknown payment');
        const recorded = await insertRefundOnce(trx, {
          idempotency_key: idempotencyKey,
          payment_reference: reference,
          amount_cents: amountCents,
          created_at: now,
        });
        if (!recorded) {
          const earlier = await findRefund(trx, idempotencyKey);
          if (earlier?.payment_reference !== reference || earlier.amount_cents !== amountCents) {
            throw refuse(409, 'the idempotency key was used for another refund');
          }
        } else if (!(await addRefund(trx, reference, amountCents, now))) {
          const payment = (await findPayment(trx, reference))!;
          if (payment.state !== 'settled' && payment.state !== 'refunded')
            throw refuse(409, `a ${payment.state} payment cannot be refunded`);
          throw refuse(422, `at most ${payment.amount_cents - payment.refunded_cents} cents are left to refund`);
        }
        return statusOf((await findPayment(trx, reference))!);
      });
    },
  };
}

export function statusOf(payment: TestGatewayPayment): PaymentStatus {
  const token = payment.state === 'settled' ? payment.card_token : null;
  return {
    reference: payment.reference,
    orderReference: payment.order_reference,
    state: payment.state,
    amountCents: Number(payment.amount_cents),
    refundedCents: Number(payment.refunded_cents),
    // It takes EUR only, on the one account it pretends to be.
    currency: 'EUR',
    ownAccount: true,
    // Its payments are paid or refunded, never disputed: it has no chargeback to tell of.
    chargedBack: false,
    // Every card of the test gateway is the same pretend Visa, valid for three more years.
    ...(token !== null && {
      card: {
        token,
        brand: 'visa',
        lastFour: '4242',
        expiryMonth: 12,
        expiryYear: new Date(Number(payment.created_at)).getUTCFullYear() + 3,
      },
    }),
  };
}

/** What a real provider would refuse in a create request: the shop's bug, never the shopper's. */
function inputProblem(
  input: Omit<CreatePaymentInput, 'orderReference' | 'locale' | 'customerIp'> & { orderReference: string },
): string | undefined {
  // Saving a card may take nothing (a card check); every other payment takes something.
  const least = input.requestToken === true ? 0 : 1;
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < least) return 'the amount must be a positive number of cents';
  if (input.currency !== 'EUR') return 'only EUR is taken';
  if (input.orderReference === '' || input.orderReference.length > 64) return 'the order reference must be 1 to 64 characters';
  if (input.idempotencyKey === '' || input.idempotencyKey.length > 200) return 'the idempotency key must be 1 to 200 characters';
  if (input.customerEmail.length > 320) return 'the email is too long';
  for (const url of [input.returnUrl, input.callbackUrl]) {
    if (!isHttpUrl(url) || url.length > 2000) return `not an http(s) URL: ${url.slice(0, 100)}`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
