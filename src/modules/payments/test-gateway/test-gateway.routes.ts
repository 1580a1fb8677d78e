import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { DatabaseHandle } from '../../../db/database.js';
import { ErrorSchema } from '../../../http/schemas.js';
import { isTestGatewayReference, testGatewayPagePath } from './test-gateway.adapter.js';
import { createCallbackSender, CALLBACK_RETRY_DELAYS_MS } from './test-gateway.callback.js';
import { messagePage, pageSecurityPolicy, paymentPage } from './test-gateway.page.js';
import { findPayment, finishPendingPayment, type TestGatewayPayment } from './test-gateway.repository.js';
import type { TestGatewayState } from './test-gateway.tables.js';

export interface TestGatewayDeps {
  database: DatabaseHandle;
  /** Waits before each retry of a callback the shop did not take; the default suits a person clicking. */
  callbackRetryDelaysMs?: readonly number[];
}

/** What each button does to a pending payment. */
const OUTCOMES = new Map<string, TestGatewayState>([
  ['pay', 'settled'],
  ['decline', 'failed'],
  ['cancel', 'abandoned'],
]);

const FORM_BODY_LIMIT_BYTES = 4096;

const Params = Type.Object({ reference: Type.String({ description: 'The payment reference createPayment answered' }) });
/** A page of the simulated bank, for /docs (an HTML string is sent as it is, never serialized). */
const page = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const notFound = { 404: page('No payment at this address (a page saying so)') };

/**
 * The test gateway's hosted payment page, as a payment service provider serves one: the shopper's
 * browser comes to it from the shop, and a button finishes the payment, sends the browser back to
 * the shop's return URL and posts the callback. Registered only when TEST_GATEWAY is on.
 */
export const testGatewayRoutes: FastifyPluginAsyncTypebox<TestGatewayDeps> = async (app, deps) => {
  const db = deps.database.db;
  const callbacks = createCallbackSender(app.log, deps.callbackRetryDelaysMs ?? CALLBACK_RETRY_DELAYS_MS);
  app.addHook('onClose', () => callbacks.close());

  // The page's buttons post a plain HTML form; only this plugin's routes take form bodies.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );

  const common = { config: { storeScoped: false }, schema: { tags: ['payments'], params: Params } };
  const path = testGatewayPagePath(':reference');

  app.get(
    path,
    {
      ...common,
      schema: {
        ...common.schema,
        summary: 'Test gateway: the simulated bank page of a payment (HTML; no real money)',
        description:
          'Only when TEST_GATEWAY is on. Shows the order and amount with Pay, Decline and Cancel buttons; 404 page for an unknown payment.',
        response: { 200: page('The payment page'), ...notFound },
      },
    },
    async (request, reply) => {
      const payment = await paymentOf(request.params.reference);
      if (payment === undefined) return unknownPayment(reply);
      return sendPage(reply, 200, paymentPage(payment, returnLocation(payment)));
    },
  );

  app.post(
    path,
    {
      ...common,
      schema: {
        ...common.schema,
        summary: 'Test gateway: a button of the page (form field action=pay|decline|cancel)',
        description:
          'Finishes a pending payment once (settled, failed or abandoned), posts the callback to the shop in the background, and ' +
          "answers 303 to the shop's return URL with payment_reference and order_reference. A finished payment is left as it is.",
        response: {
          200: page("The page again, for a saved card's charge: it has no shopper to send back"),
          303: { description: "To the shop's return URL", type: 'null' },
          400: {
            description: 'No known action in the form (a page saying so), or a malformed reference or body',
            content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: ErrorSchema } },
          },
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const payment = await paymentOf(request.params.reference);
      if (payment === undefined) return unknownPayment(reply);
      const back = returnLocation(payment);
      // A saved card's charge is the shop's to make, never a button's, and has nobody to send back: its page again.
      if (back === null) return sendPage(reply, 200, paymentPage(payment, null));
      const action = actionOf(request.body);
      const outcome = action === undefined ? undefined : OUTCOMES.get(action);
      if (outcome === undefined) {
        return sendPage(reply, 400, messagePage('Bad request', 'Choose Pay, Decline or Cancel on the payment page.'));
      }
      if (await finishPendingPayment(db, payment.reference, outcome, request.actionTime)) {
        callbacks.send(payment.callback_url, {
          payment_reference: payment.reference,
          order_reference: payment.order_reference,
          event_name: 'status_updated',
        });
      }
      return reply.header('cache-control', 'no-store').redirect(back, 303);
    },
  );

  async function paymentOf(reference: string): Promise<TestGatewayPayment | undefined> {
    return isTestGatewayReference(reference) ? findPayment(db, reference) : undefined;
  }
};

function unknownPayment(reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    404,
    messagePage('Payment not found', 'There is no payment at this address. Go back to the shop and start again.'),
  );
}

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', pageSecurityPolicy())
    .header('x-frame-options', 'DENY')
    .send(html);
}

/**
 * The shop's return URL with the payment named in its query, as the callback names it; null for a saved
 * card's charge, made without a shopper (chargeSavedCard keeps no return URL): its page has no way back.
 */
function returnLocation(payment: TestGatewayPayment): string | null {
  if (payment.return_url === '') return null;
  const url = new URL(payment.return_url);
  url.searchParams.set('payment_reference', payment.reference);
  url.searchParams.set('order_reference', payment.order_reference);
  return url.toString();
}

/** The button pressed: exactly one `action` field in the form (or a JSON body's `action`). */
function actionOf(body: unknown): string | undefined {
  if (body instanceof URLSearchParams) {
    const actions = body.getAll('action');
    return actions.length === 1 ? actions[0] : undefined;
  }
  if (typeof body === 'object' && body !== null && 'action' in body && typeof body.action === 'string') return body.action;
  return undefined;
}
