import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../../db/after-commit.js';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { answeredAt, type Clock } from '../../../infra/clock.js';
import type { Logger } from '../../../infra/logger.js';
import { conflict, DomainError } from '../../../infra/domain-error.js';
import { isFirstSubmission, RESUBMIT_WINDOW_MS, submissionKey } from '../../../infra/resubmit.js';
import { boughtCardsValue, capturedCents, restoreBoughtCards, takeOffBoughtCards } from '../../gift-cards/index.js';
import {
  GatewayRefusedError,
  GatewayUnavailableError,
  refundOrLookUp,
  type GatewayName,
  type Gateways,
  type PaymentGateway,
  type PaymentStatus,
} from '../../payments/index.js';
import { moveOrder, PAID } from '../order-states.js';
import { lockOrder } from '../orders.repository.js';
import { applyPaymentStatus } from '../payment-status.service.js';
import { documentOf, orderOf } from './admin-orders.service.js';
import type { OrderDocument } from './order-document.js';
import { paymentsOf, type OrderRow, type PaymentRow } from './processing.repository.js';
import { insertRefund, moveRefund, refundByRequestKey, refundedSince, unresolvedRefundOf, type RefundRow } from './refunds.repository.js';

// Operators' refunds through the order's gateway. A refund is recorded (order_refund) before the
// gateway is asked, under a gateway key of its own that every try sends, so the gateway makes it
// once: a retry of a refund whose answer was lost (the operator got a 503) looks the payment up at
// the gateway and answers what became of it, whether or not the gateway's callback applied it
// meanwhile; a second refund while one is at the gateway is refused (409), never sent; the same
// refund sent again without a key after it was made (a double click) answers it within the
// resubmit window. Two refunds of one sum within that window each need an Idempotency-Key.
//
// Money spent from the gift cards the order bought is never paid back: a refund gives back at most
// what was paid less that, and what it gives back of the cards' unspent value is taken off the cards
// in the transaction that records it, before the gateway is asked, so it cannot be spent as well.

/** How long a request may have its refund at the gateway (two calls within EVERYPAY_TIMEOUT_MS, with room). */
const IN_FLIGHT_MS = 60_000;

export interface RefundRequest {
  /** What to refund; all that can be given back when undefined. */
  amountCents: number | undefined;
  /** The operator's Idempotency-Key: a retry under it answers the first refund's result. */
  requestKey: string | undefined;
}

export interface RefundAnswer {
  document: OrderDocument;
  /** Spent from the gift cards the order bought: held back from every refund of it. */
  heldBackCents: number;
}

type Claim = { kind: 'answered'; refund: RefundRow } | { kind: 'send'; refund: RefundRow; resumed: boolean; mine: boolean };

const euros = (cents: number) => (cents / 100).toFixed(2);

/** Refunds the order's settled payment (or its gift cards, when they paid it alone). */
export async function refundOrder(
  db: Kysely<Database>,
  deps: { gateways: Gateways; clock: Clock; log: Pick<Logger, 'error'> },
  code: string,
  request: RefundRequest,
  now: number,
) {
  const { gateways } = deps;
  const order = await orderOf(db, code);
  const payments = (await paymentsOf(db, [order.id])).filter((p) => p.reference !== null);
  const payment =
    payments.find((p) => p.state === 'settled' || (p.state === 'refunded' && p.refunded_cents < p.amount_cents)) ??
    // Refunded in full: a refund sent again (a double click, a retry under its key) is answered from it.
    payments.find((p) => p.state === 'refunded');
  if (!payment) return answer(db, await refundToGiftCards(db, order, code, request, now), order.id);
  const name = payment.gateway as GatewayName;
  const gateway = gateways[name];
  if (gateway === undefined) throw new DomainError('unavailable', 'orders.gatewayOff', { code, gateway: payment.gateway });
  // An earlier refund left unresolved is finished first; then this request's own is made.
  for (;;) {
    const claim = await inTransaction(db, (trx) => claimRefund(trx, order, payment, request, now));
    if (claim.kind === 'answered') return answerRefund(db, code, name, order.id, claim.refund.state);
    const at = { gateway, name, reference: payment.reference!, orderId: order.id, log: deps.log, clock: deps.clock };
    const state = await sendRefund(db, at, claim.refund, claim.resumed, now);
    if (claim.mine) return answerRefund(db, code, name, order.id, state);
  }
}

/**
 * Under the order's lock: the refund this request finishes (its own Idempotency-Key's, finished
 * already; or the payment's unresolved one), or a new one recorded, with the cards' share taken off.
 */
async function claimRefund(trx: Db, order: OrderRow, found: PaymentRow, request: RefundRequest, now: number): Promise<Claim> {
  const orderId = order.id;
  await lockOrder(trx, orderId);
  if (request.requestKey !== undefined) {
    const known = await refundByRequestKey(trx, found.id, request.requestKey);
    // The key names one refund: sent with another sum (or "all" for a sum), it is another request, which
    // that refund's answer would pass off as made.
    if (known && known.requested_cents !== (request.amountCents ?? null))
      throw conflict('orders.refundKeyReused', { amount: euros(known.amount_cents) });
    if (known && (known.state === 'refunded' || known.state === 'refused')) return { kind: 'answered', refund: known };
  } else {
    // Without a key, the same refund again within the resubmit window is a double click (or a retry
    // of an answer that got lost on its way): it answers the refund made, not a second one, whether
    // or not that one was sent under a key (only a key of its own makes a second refund of the sum).
    const repeated = await refundedSince(trx, found.id, request.amountCents ?? null, now - RESUBMIT_WINDOW_MS);
    if (repeated) return { kind: 'answered', refund: repeated };
  }
  const unresolved = await unresolvedRefundOf(trx, found.id);
  if (unresolved) {
    const inFlight = unresolved.state === 'sending' && now - Number(unresolved.updated_at) < IN_FLIGHT_MS;
    if (inFlight || !(await moveRefund(trx, unresolved, 'sending', now)))
      throw conflict('orders.refundInProgress', { amount: euros(unresolved.amount_cents) });
    const resumed = { ...unresolved, state: 'sending' as const, updated_at: now };
    return { kind: 'send', refund: resumed, resumed: true, mine: isRequestOf(unresolved, request) };
  }
  const payment = await trx.selectFrom('order_payment').selectAll().where('id', '=', found.id).executeTakeFirstOrThrow();
  const cards = await boughtCardsValue(trx, orderId);
  // Nothing left of it (refunded in full, and this is no repeat of that refund): no payment to refund.
  if (payment.refunded_cents >= payment.amount_cents) throw conflict('orders.noSettledPayment', { code: order.code ?? '' });
  const left = payment.amount_cents - payment.refunded_cents - cards.spentCents;
  const cents = request.amountCents ?? left;
  if (cents > left || cents <= 0) throw tooLarge(cents, left, cards.spentCents);
  // The other things the order paid for come first; past them the refund is the cards' unspent value.
  const cardCents = Math.max(0, cents - (left - cards.unspentCents));
  if (cardCents > 0 && (await takeOffBoughtCards(trx, orderId, cardCents, now)) > 0)
    throw tooLarge(cents, left - cardCents, cards.spentCents + cardCents); // spent meanwhile: rolled back
  const refund = await insertRefund(trx, {
    payment_id: payment.id,
    requested_cents: request.amountCents ?? null,
    amount_cents: cents,
    refunded_before_cents: payment.refunded_cents,
    card_cents: cardCents,
    idempotency_key: `${payment.idempotency_key}-refund-${randomBytes(8).toString('hex')}`,
    request_key: request.requestKey ?? null,
    state: 'sending',
    created_at: now,
  });
  return { kind: 'send', refund, resumed: false, mine: true };
}

function tooLarge(cents: number, left: number, spentCents: number) {
  const amount = euros(cents);
  if (spentCents > 0) return conflict('orders.refundTooLargeSpent', { amount, left: euros(Math.max(0, left)), spent: euros(spentCents) });
  return conflict('orders.refundTooLarge', { amount, left: euros(Math.max(0, left)) });
}

/** Whether a request is a retry of this refund: the same Idempotency-Key, or without one the same sum asked (under any key). */
function isRequestOf(refund: RefundRow, request: RefundRequest): boolean {
  if (request.requestKey !== undefined) return refund.request_key === request.requestKey;
  return refund.requested_cents === (request.amountCents ?? null);
}

/**
 * Has the gateway make the refund (once, under its key) and records the outcome: `refunded` with the
 * payment's status applied in the same transaction, `refused`, or `unknown` and a 503 when the
 * gateway did not answer (or refused to say how the payment stands).
 */
async function sendRefund(
  db: Kysely<Database>,
  at: { gateway: PaymentGateway; name: GatewayName; reference: string; orderId: number; log: Pick<Logger, 'error'>; clock: Clock },
  refund: RefundRow,
  resumed: boolean,
  now: number,
): Promise<'refunded' | 'refused'> {
  let status: PaymentStatus | null;
  try {
    status = await refundedPayment(at.gateway, at.reference, refund, resumed);
  } catch (error) {
    // A refusal that says nothing of the refund (the shop's credentials refused, or the look-up after a
    // refusal refused): whether it was made cannot be told, as when the gateway did not answer. Left
    // `sending`, a 500 held every other refund of the payment off for a minute and then sent it again blind.
    if (!(error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError)) throw error;
    // A refusal of the shop itself (its credentials, or an address that is not the gateway's API) lasts
    // until the operator puts the settings right: the answer says so, and the log says which (the
    // gateway's words, or EVERYPAY_API_URL).
    const refusedShop = error instanceof GatewayRefusedError && error.refusal === 'the-caller';
    if (error instanceof GatewayRefusedError)
      at.log.error({ err: error, orderId: at.orderId }, 'refund left unknown: the gateway refused a request it needed');
    await moveRefund(db, refund, 'unknown', now);
    throw new DomainError('unavailable', refusedShop ? 'orders.gatewayRefusedShop' : 'orders.gatewayUnavailable', { gateway: at.name });
  }
  // What the gateway's answer changes is stamped when it came: the gateway may take seconds (two calls
  // within EVERYPAY_TIMEOUT_MS), and the request's time, stamped on a change that commits that much
  // later, was behind the cursor of a back office's walk of GET /admin/orders that went on meanwhile.
  const answered = answeredAt(at.clock, now);
  if (status === null) {
    // Nothing was paid back: what was taken off the bought cards for it goes back on them.
    await inTransaction(db, async (trx) => {
      if ((await moveRefund(trx, refund, 'refused', answered)) && refund.card_cents > 0)
        await restoreBoughtCards(trx, at.orderId, refund.card_cents, Number(refund.created_at), answered);
    });
    return 'refused';
  }
  const applied = status;
  await inTransaction(db, async (trx) => {
    await applyPaymentStatus(trx, at.name, applied, 'refund', answered);
    await moveRefund(trx, refund, 'refunded', answered);
  });
  return 'refunded';
}

/**
 * The payment once the refund is made; null when the gateway refused it. A resumed refund may have
 * been made already (its answer lost): the payment is looked up first. A refusal of what was asked may
 * be of the key used already: the payment as it is then tells. A refusal of the caller (the shop's
 * credentials) is thrown, as the gateway unavailable is: the refund is left unknown and sent again by
 * the next request, where a look-up finding the payment unrefunded recorded it refused for good.
 */
async function refundedPayment(gateway: PaymentGateway, reference: string, refund: RefundRow, resumed: boolean) {
  const made = (status: PaymentStatus | null) =>
    status?.state === 'refunded' && status.refundedCents >= refund.refunded_before_cents + refund.amount_cents ? status : null;
  if (resumed) {
    const found = made(await gateway.fetchStatus(reference));
    if (found) return found;
  }
  const { status, refusal } = await refundOrLookUp(gateway, reference, refund.amount_cents, refund.idempotency_key);
  return refusal ? made(status) : status;
}

async function answerRefund(db: Kysely<Database>, code: string, gateway: GatewayName, orderId: number, state: RefundRow['state']) {
  if (state === 'refused') throw conflict('orders.gatewayRefused', { gateway });
  return answer(db, await documentOf(db, code), orderId);
}

async function answer(db: Kysely<Database>, document: OrderDocument, orderId: number): Promise<RefundAnswer> {
  return { document, heldBackCents: (await boughtCardsValue(db, orderId)).spentCents };
}

/**
 * An order no gateway payment settled for, paid by its gift cards alone: the refund is what the
 * cards paid, back on their ledgers (the CANCELLED transition refunds each CAPTURED hold once).
 * A card's share goes back whole, so a part refund is refused, and so is any refund once something
 * of the cards the order bought was spent (it would pay that back); an order whose cards have
 * nothing left to get back (never paid, refunded already, or FAILED, which gave it back) is a 409,
 * except the same refund asked again within the resubmit window, which answers as the first did.
 *
 * A paid order with a payment made at a gateway (it has the gateway's reference) that is neither
 * settled nor refunded in the shop's rows is a 409 too: it was paid through that payment, whose row
 * is behind (a status read before the settle was applied over it, which earlier builds did), and
 * cancelling it would keep the card's money while the order is off.
 */
async function refundToGiftCards(db: Kysely<Database>, order: OrderRow, code: string, request: RefundRequest, now: number) {
  const { amountCents, requestKey } = request;
  await db.transaction().execute(async (trx) => {
    // The same refund again within the resubmit window (a double click, a retry after a lost answer,
    // the same Idempotency-Key) answers the first one's result: the order it cancelled, as it is now.
    // The key is taken first and rolls back with a refused refund, so only a refund made is a repeat's.
    const submission = submissionKey('gift-card-refund', [order.id, requestKey ?? null, amountCents ?? null]);
    if (!(await isFirstSubmission(trx, submission, now))) return;
    const left = await capturedCents(trx, order.id);
    if (left === 0 || !PAID.includes(order.status)) throw conflict('orders.noSettledPayment', { code });
    const online = (await paymentsOf(trx, [order.id])).find((payment) => payment.reference !== null && payment.state !== 'refunded');
    if (online) throw conflict('orders.paymentNotSettled', { code, gateway: online.gateway });
    const cents = amountCents ?? left;
    // A card's share goes back whole, so with anything spent of the cards the order bought nothing can go back.
    const { spentCents } = await boughtCardsValue(trx, order.id);
    if (spentCents > 0) throw tooLarge(cents, left - spentCents, spentCents);
    if (cents > left) throw conflict('orders.refundTooLarge', { amount: euros(cents), left: euros(left) });
    if (cents !== left) throw conflict('orders.giftCardRefundWhole', { left: euros(left) });
    const moved = await moveOrder(trx, {
      orderId: order.id,
      from: PAID,
      to: 'CANCELLED',
      cause: `refunded ${euros(cents)} EUR to its gift cards`,
      now,
    });
    if (!moved) throw conflict('orders.noSettledPayment', { code });
    // Read again now that the move voided the bought cards (a card spent since the read above is not
    // voided, its balance changed): spent meanwhile, the paying cards would pay it back. Rolled back.
    const spentSince = (await boughtCardsValue(trx, order.id)).spentCents;
    if (spentSince > 0) throw tooLarge(cents, left - spentSince, spentSince);
  });
  return documentOf(db, code);
}
