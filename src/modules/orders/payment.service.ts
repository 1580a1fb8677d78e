import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/after-commit.js';
import type { Db } from '../../db/database.js';
import { rolledBack } from '../../db/rolled-back.js';
import type { Database } from '../../db/schema.js';
import { answeredAt, type Clock } from '../../infra/clock.js';
import { DomainError } from '../../infra/domain-error.js';
import { rateLimited } from '../../infra/rate-limit.js';
import type { GatewayName, Gateways, LookUpPauses, PaymentGateway, RedirectForm } from '../payments/index.js';
import { GatewayRefusedError, GatewayUnavailableError, lookUpOnReturn } from '../payments/index.js';
import { AWAITING_PAYMENT, moveOrder, PAID } from './order-states.js';
import { findOrder, latestPayment, lockOrder, paymentAttemptsSince, touchOrder, type OrderRow } from './orders.repository.js';
import { PAYMENT_METHODS } from './payment-methods.js';
import { applyPaymentStatus } from './payment-status.service.js';
import { attemptReference } from './payment-reference.js';

// Starting an order's payment (GET /bank/create-form) and the shopper's return from the gateway.
// Only an order in NEW starts a payment: the move NEW -> PENDING_PAYMENT and the payment row
// commit before the gateway is called, so a second request finds the first one's payment and
// answers its form (or waits for it) instead of paying twice. The gateway is never called inside
// a transaction.

export interface PaymentUrls {
  /** Where checkout sends the front-end: this API's create-form of the order. */
  createFormUrl(orderId: number): string;
  /** Where the gateway sends the shopper back (the order's return-internal URL). */
  returnUrl(order: OrderRow): string;
  callbackUrl(gateway: GatewayName): string;
  /** The front-end's pages of the order: checkout finished, and payment failed. */
  finishedUrl(order: OrderRow): Promise<string>;
  failedUrl(order: OrderRow): Promise<string>;
}

type Claim =
  | { form: RedirectForm }
  | { finished: OrderRow }
  | { create: { order: OrderRow; gateway: PaymentGateway; paymentId: number; idempotencyKey: string; orderReference: string } };

/** A payment whose create call started this long ago and never finished is taken as lost. */
const LOST_CREATE_MS = 60_000;

/**
 * Payment attempts one order may start within an hour. Each start that the gateway does not take
 * (down, or refusing it) puts the order back in NEW, so anyone holding the order's link could start
 * again and again: each a call on the merchant's credentials, a payment row, two status changes and
 * their partner events. A shopper retrying an outage needs a few; past them a 429 until the oldest
 * of the hour's attempts is an hour old.
 */
const STARTS_PER_WINDOW = 10;
const START_WINDOW_MS = 3_600_000;

type PaymentTerms = { payment_method: string; total_cents: number };

const gatewayOf = (order: PaymentTerms) => PAYMENT_METHODS.find((method) => method.id === order.payment_method)?.gateway ?? null;

/**
 * Why an order has nothing to pay at a gateway (null: it has): paid offline (an invoice, in the shop,
 * on delivery) or nothing left after its gift cards. Such an order goes on to processing when placed
 * and its link opened, or when the sweep finds the link never was.
 */
export function nothingToPayOnline(order: PaymentTerms): string | null {
  if (Number(order.total_cents) === 0) return 'nothing to pay';
  return gatewayOf(order) === null ? `nothing to pay online (${order.payment_method})` : null;
}

export async function startPayment(
  db: Kysely<Database>,
  deps: { gateways: Gateways; urls: PaymentUrls; clock: Clock },
  orderId: number,
  customerIp: string | null,
  now: number,
): Promise<RedirectForm> {
  const claim = await db.transaction().execute((trx) => claimStart(trx, deps.gateways, orderId, now));
  // The front-end's page is read outside the transaction: on SQLite it holds the one connection.
  if ('finished' in claim) return finished(deps.urls, claim.finished);
  if ('form' in claim) return claim.form;

  const { order, gateway, paymentId, idempotencyKey, orderReference } = claim.create;
  try {
    const created = await gateway.createPayment({
      orderReference,
      amountCents: order.total_cents,
      currency: 'EUR',
      customerEmail: order.billing_email,
      customerIp,
      locale: order.language as 'et' | 'en' | 'ru',
      returnUrl: deps.urls.returnUrl(order),
      callbackUrl: deps.urls.callbackUrl(gateway.name),
      idempotencyKey,
    });
    // What the gateway's answer changes is stamped when it came (answeredAt says why), and the order is
    // marked changed with it: the payment (its reference, its state) is part of the order's document,
    // which the operators' feed shows by the order's updated_at.
    const at = answeredAt(deps.clock, now);
    const kept = await db.transaction().execute(async (trx) => {
      // The order's row first, as every writer of its payment takes them (a status applied, a second create-form).
      await lockOrder(trx, orderId);
      const updated = await trx
        .updateTable('order_payment')
        .set({ reference: created.reference, redirect: JSON.stringify(created.redirect), state: 'pending', updated_at: at })
        .where('id', '=', paymentId)
        .where('state', '=', 'creating')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await touchOrder(trx, orderId, at);
      return true;
    });
    // Taken for lost meanwhile (a gateway slower than LOST_CREATE_MS) and replaced: this payment is
    // nobody's to pay, so its page is not shown; the shopper asks again and gets the one that stands.
    if (!kept) throw new DomainError('conflict', 'checkout.paymentBeingCreated', {}, 2);
    return created.redirect;
  } catch (error) {
    if (!(error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError)) throw error;
    // Nothing was started at the gateway that the shopper could pay: the order may try again. Stamped
    // when the gateway answered or gave up (up to EVERYPAY_TIMEOUT_MS after the request's time).
    const at = answeredAt(deps.clock, now);
    await db.transaction().execute(async (trx) => {
      await lockOrder(trx, orderId);
      await trx.updateTable('order_payment').set({ state: 'failed', updated_at: at }).where('id', '=', paymentId).execute();
      await moveOrder(trx, { orderId, from: 'PENDING_PAYMENT', to: 'NEW', cause: `${gateway.name} could not create the payment`, now: at });
    });
    throw new DomainError('unavailable', 'checkout.gatewayUnavailable', {}, 30);
  }
}

/**
 * What a HEAD of create-form answers: the GET's refusals (409 an order that cannot pay, 429 too many
 * starts, 503 no such gateway) or nothing, from the GET's own claim run in a transaction rolled back.
 * A link checker, a mail scanner or a prefetch of the link starts no payment, calls no gateway and
 * moves no order (one paid offline stays NEW until the shopper's browser opens the link).
 */
export async function checkPaymentStart(db: Kysely<Database>, gateways: Gateways, orderId: number, now: number): Promise<void> {
  await rolledBack(db, (trx) => claimStart(trx, gateways, orderId, now));
}

/**
 * Under the order's lock: the payment that stands (its form), an order with nothing to pay online
 * moved on to processing, or a new payment row of an order moved to PENDING_PAYMENT, for the gateway
 * call after the commit.
 */
async function claimStart(trx: Db, gateways: Gateways, orderId: number, now: number): Promise<Claim> {
  // Two create-forms at once take turns here, so the second sees the first's payment (PostgreSQL; SQLite takes turns anyway).
  await lockOrder(trx, orderId);
  const order = (await findOrder(trx, orderId))!;
  const gatewayName = gatewayOf(order);
  const cause = nothingToPayOnline(order);
  if (gatewayName === null || cause !== null) {
    if ((await moveOrder(trx, { orderId, from: 'NEW', to: 'PENDING_PROCESSING', cause: cause!, now })) || PAID.includes(order.status))
      return { finished: order };
    throw notStartable(order);
  }
  if (order.status === 'PENDING_PAYMENT') {
    const payment = await latestPayment(trx, orderId);
    if (payment?.redirect) return { form: JSON.parse(payment.redirect) as RedirectForm };
    if (payment && payment.state === 'creating' && now - Number(payment.created_at) < LOST_CREATE_MS)
      throw new DomainError('conflict', 'checkout.paymentBeingCreated', {}, 2);
    // The create call of a process that died: give it up and start again.
    if (payment) await trx.updateTable('order_payment').set({ state: 'failed', updated_at: now }).where('id', '=', payment.id).execute();
    await moveOrder(trx, { orderId, from: 'PENDING_PAYMENT', to: 'NEW', cause: 'payment creation was lost', now });
  } else if (order.status !== 'NEW') throw notStartable(order);
  await refuseTooManyStarts(trx, orderId, now);
  const gateway = gateways[gatewayName];
  if (!gateway) throw new DomainError('unavailable', 'checkout.gatewayUnavailable', {}, 60);
  if (!(await moveOrder(trx, { orderId, from: 'NEW', to: 'PENDING_PAYMENT', cause: `payment started (${gatewayName})`, now })))
    throw notStartable(order);
  const idempotencyKey = randomBytes(16).toString('hex');
  const attempts = await trx
    .selectFrom('order_payment')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();
  const orderReference = attemptReference(order.code!, Number(attempts.n) + 1);
  const payment = await trx
    .insertInto('order_payment')
    .values({
      order_id: orderId,
      gateway: gatewayName,
      reference: null,
      order_reference: orderReference,
      idempotency_key: idempotencyKey,
      amount_cents: order.total_cents,
      state: 'creating',
      redirect: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { create: { order, gateway, paymentId: Number(payment.id), idempotencyKey, orderReference } };
}

/**
 * The shopper is back from the gateway: ask the gateway how the payment stands (the request's own
 * parameters are not trusted) and apply it. Answers the order's status after it; a gateway that
 * cannot be reached leaves it as it was (the callback or the sweep will tell). An order no longer
 * waiting for its payment answers its status without asking: anyone holding the order's link may
 * repeat the return, and each ask is a call on the merchant's credentials; but one given up while its
 * payment was still open at the gateway is asked about (its late settle pays it). The look-up goes through the gateway's pause
 * (`pauses`, the one the callbacks' look-ups share): while it is paused nothing is asked, and an
 * outage the look-up meets pauses the callbacks' look-ups too. Before, every return during an outage
 * was a call to the failing gateway, limited only per address.
 */
export async function settleReturn(
  db: Kysely<Database>,
  deps: { gateways: Gateways; pauses: LookUpPauses; clock: Clock },
  order: OrderRow,
  now: number,
): Promise<OrderRow['status']> {
  const payment = await latestPayment(db, order.id);
  // An order given up while its payment was still open at the gateway (the sweep cancels one whose
  // shopper is still on the gateway's page) is asked about too: the shopper who paid late and comes
  // back is the shop's word of it when the callback is lost, and its late settle pays the order.
  // Answered without asking, the shopper who paid was sent to the failed page, and with the callback
  // lost the money stayed with the shop, the order cancelled.
  if (!AWAITING_PAYMENT.includes(order.status) && payment?.state !== 'pending') return order.status;
  const gateway = payment?.gateway ? deps.gateways[payment.gateway as GatewayName] : undefined;
  if (!payment?.reference || !gateway) return order.status;
  const status = await lookUpOnReturn(deps.pauses, gateway, payment.reference);
  if (!status) return order.status;
  // Stamped when the gateway answered the look-up, not when the shopper came back (answeredAt says why).
  const at = answeredAt(deps.clock, now);
  const applied = await inTransaction(db, (trx) => applyPaymentStatus(trx, gateway.name, status, 'return', at));
  return applied.orderStatus ?? order.status;
}

/** Under the order's lock: a 429 when the order started STARTS_PER_WINDOW payment attempts within the window. */
async function refuseTooManyStarts(trx: Db, orderId: number, now: number): Promise<void> {
  const recent = await paymentAttemptsSince(trx, orderId, now - START_WINDOW_MS);
  if (recent.count < STARTS_PER_WINDOW || recent.firstAt === null) return;
  throw rateLimited(Math.max(1, Math.ceil((recent.firstAt + START_WINDOW_MS - now) / 1000)));
}

async function finished(urls: PaymentUrls, order: OrderRow): Promise<RedirectForm> {
  return { url: await urls.finishedUrl(order), method: 'GET', fields: {} };
}

function notStartable(order: OrderRow): DomainError {
  return new DomainError('conflict', 'checkout.paymentNotStartable', { status: order.status });
}
