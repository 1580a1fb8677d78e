import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/after-commit.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { toIsoTimestamp } from '../../db/time.js';
import { findCharge, refundRefusedChargesPage, type ChargeRow } from './charges.repository.js';
import { linesOfPages } from './pending-charges.service.js';
import { markRefunded, retryRefusedRefund } from './refunds.js';

// The operator's way out for a refund the gateway refused for good (refunds.ts: refund_refused, no
// job or billing run sends it again; also one no refunder could refund for REFUND_DUE_GIVE_UP_MS):
// `subscription charges --refund-refused` lists those charges
// with the gateway's refusal, `mark-refunded` records one the operator paid back by hand (in the
// merchant portal, or by a bank transfer when the gateway will not refund the payment at all) and
// mails its customer that the money went back (not naming the card: it may have gone by bank transfer), and `retry-refund` sends one back to
// refund_due once the gateway's side is put right, its refund queued at once. Neither asks the
// gateway anything: a refund made outside it is only the operator's to know.

const PAGE = 500;

/** A refund_refused charge as `subscription charges --refund-refused` prints it. */
export interface RefundRefusedLine {
  /** The charge's id: what `mark-refunded` and `retry-refund` take. */
  id: number;
  subscriptionId: number;
  periodNumber: number;
  purpose: ChargeRow['purpose'];
  /** The charge's amount, what its payment took. */
  amount: number;
  /** What the payment's refunds at the gateway came to already (a refund in part in its portal), as last seen. */
  refunded: number;
  /** What is still to be paid back: `amount` less `refunded`. Paid back by hand, the full amount refunded the part twice. */
  toRefund: number;
  currency: 'EUR';
  gateway: string;
  orderReference: string;
  /** The gateway's payment reference: what the merchant portal finds the payment by. */
  reference: string | null;
  /** The gateway's refusal, as it worded it, and when. */
  refusal: string | null;
  refusedAt: string | null;
  createdAt: string;
}

/** Every refund_refused charge, oldest first, a page at a time. */
export function refundRefusedCharges(db: Kysely<Database>): AsyncGenerator<RefundRefusedLine> {
  return linesOfPages((afterId) => refundRefusedChargesPage(db, afterId, PAGE), PAGE, lineOf);
}

function lineOf(charge: ChargeRow): RefundRefusedLine {
  return {
    id: Number(charge.id),
    subscriptionId: Number(charge.subscription_id),
    periodNumber: charge.period_number,
    purpose: charge.purpose,
    amount: charge.amount_cents / 100,
    refunded: charge.refunded_cents / 100,
    toRefund: Math.max(0, charge.amount_cents - charge.refunded_cents) / 100,
    currency: 'EUR',
    gateway: charge.gateway,
    orderReference: charge.order_reference,
    reference: charge.reference,
    refusal: charge.refund_refusal,
    refusedAt: charge.refund_refused_at === null ? null : toIsoTimestamp(Number(charge.refund_refused_at)),
    createdAt: toIsoTimestamp(Number(charge.created_at)),
  };
}

/** What an action on a refused refund printed: the charge and the state it is in now. */
export interface RefusedRefundResult {
  id: number;
  orderReference: string;
  subscriptionId: number;
  state: ChargeRow['state'];
}

/**
 * Records a refund_refused charge refunded by hand: refunded, its customer mailed that the money went
 * back (as a refund through the gateway is, without naming the card), in one transaction. Refused (an Error naming why;
 * the command exits 1), changing nothing: an unknown id, a charge in another state (refunded already, by a
 * second call or one at the same time).
 */
export function markRefundedByHand(db: Kysely<Database>, chargeId: number, now: number): Promise<RefusedRefundResult> {
  return inTransaction(db, async (trx) => {
    const charge = await refusedCharge(trx, chargeId);
    if ((await markRefunded(trx, charge, ['refund_refused'], now, 'byHand')) !== 'refunded') await refuseMovedMeanwhile(trx, charge);
    return { ...resultOf(charge), state: 'refunded' };
  });
}

/**
 * Sends a refund_refused charge back to refund_due, its refund queued (the job tries it at once, each billing
 * run after). Refused, changing nothing, as markRefundedByHand is.
 */
export function retryRefund(db: Kysely<Database>, chargeId: number, now: number): Promise<RefusedRefundResult> {
  return inTransaction(db, async (trx) => {
    const charge = await refusedCharge(trx, chargeId);
    if (!(await retryRefusedRefund(trx, charge, now))) await refuseMovedMeanwhile(trx, charge);
    return { ...resultOf(charge), state: 'refund_due' };
  });
}

/** The charge, when it is refund_refused as read; otherwise the reason why nothing changes. */
async function refusedCharge(trx: Db, chargeId: number): Promise<ChargeRow> {
  const charge = await findCharge(trx, chargeId);
  if (!charge) throw new Error(`no subscription charge has the id ${chargeId}; nothing changed`);
  if (charge.state !== 'refund_refused') throw notRefusedError(charge);
  return charge;
}

/** Another command (or a refunder that found it refunded at the gateway) moved the charge since it was read. */
async function refuseMovedMeanwhile(trx: Db, charge: ChargeRow): Promise<never> {
  throw notRefusedError((await findCharge(trx, Number(charge.id)))!);
}

const notRefusedError = (charge: ChargeRow) =>
  new Error(`charge ${charge.id} (${charge.order_reference}) is ${charge.state}, not refund_refused: nothing changed`);

const resultOf = (charge: ChargeRow) => ({
  id: Number(charge.id),
  orderReference: charge.order_reference,
  subscriptionId: Number(charge.subscription_id),
});
