import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/after-commit.js';
import { rowsByIdPages } from '../../db/id-pages.js';
import type { Database } from '../../db/schema.js';
import { toIsoTimestamp } from '../../db/time.js';
import { GatewayRefusedError, GatewayUnavailableError, type GatewayName, type Gateways, type PaymentStatus } from '../payments/index.js';
import { applyChargeOutcome, applyChargeStatus, outcomeOf, paysCharge, type ChargeOutcome } from './billing.apply.js';
import { STALE_CHARGE_MS } from './billing.service.js';
import {
  findChargeByOrderReference,
  mismatchedPendingChargesPage,
  stalePendingChargesPage,
  type ChargeRow,
  type MismatchedPayment,
} from './charges.repository.js';
import { findSubscription } from './subscriptions.repository.js';

// The operator's way out for a charge the gateway cannot settle (billing.service.ts: EveryPay took
// it, its callback never came, and it cannot be asked by order reference): `subscription charges
// --pending` lists such charges to look up in the gateway's merchant portal (`--mismatched`, at once,
// those whose gateway named a payment that does not pay them: another sum, currency or account), and `subscription settle`
// applies what the operator found there through billing.apply.ts, the code that applies a gateway's
// answer: the period starts (and is mailed) on paid, the retry schedule or the end of a first month on
// failed. A payment the operator names is fetched from the gateway first, so its word, not a typing
// slip, is what is applied, and the payment's reference is kept for a refund it may come to need.

const PAGE = 500;

/** A stale pending charge as `subscription charges --pending` prints it: what the merchant portal finds it by. */
export interface PendingChargeLine {
  subscriptionId: number;
  periodNumber: number;
  purpose: ChargeRow['purpose'];
  attempt: number;
  amount: number;
  currency: 'EUR';
  gateway: string;
  orderReference: string;
  /** The gateway's payment reference, when an answer named it. */
  reference: string | null;
  createdAt: string;
  /** When the billing run last looked it up at the gateway; null: never. */
  checkedAt: string | null;
  /** The last payment its gateway named for it that does not pay it, and when; null: none. */
  mismatch: MismatchLine | null;
}

/** A mismatched payment as the merchant portal shows it: its reference, order reference, state, sum, currency and account. */
export interface MismatchLine {
  reference: string;
  orderReference: string;
  state: string;
  amount: number;
  currency: string | null;
  /** False: held on another of the merchant's processing accounts, not the shop's. */
  ownAccount: boolean;
  seenAt: string;
}

/** Every charge pending and untouched for STALE_CHARGE_MS (no run has it in hand), oldest first, a page at a time. */
export function stalePendingCharges(db: Kysely<Database>, now: number): AsyncGenerator<PendingChargeLine> {
  return linesOfPages((afterId) => stalePendingChargesPage(db, now - STALE_CHARGE_MS, afterId, PAGE), PAGE, lineOf);
}

/** Every pending charge with a mismatch recorded (a payment that does not pay it), oldest first, a page at a time. */
export function mismatchedPendingCharges(db: Kysely<Database>): AsyncGenerator<PendingChargeLine> {
  return linesOfPages((afterId) => mismatchedPendingChargesPage(db, afterId, PAGE), PAGE, lineOf);
}

/** The lines of a list of charges read a page of `pageSize` at a time in id order, each page after the last id read. */
export async function* linesOfPages<Line>(
  pageAfter: (afterId: number) => Promise<ChargeRow[]>,
  pageSize: number,
  lineOfCharge: (charge: ChargeRow) => Line,
): AsyncGenerator<Line> {
  for await (const charge of rowsByIdPages(pageAfter, pageSize)) yield lineOfCharge(charge);
}

function mismatchOf(charge: ChargeRow): MismatchLine | null {
  if (charge.mismatch === null || charge.mismatch_at === null) return null;
  const { amountCents, ...payment } = JSON.parse(charge.mismatch) as MismatchedPayment;
  return { ...payment, amount: amountCents / 100, seenAt: toIsoTimestamp(Number(charge.mismatch_at)) };
}

function lineOf(charge: ChargeRow): PendingChargeLine {
  return {
    subscriptionId: Number(charge.subscription_id),
    periodNumber: charge.period_number,
    purpose: charge.purpose,
    attempt: charge.attempt,
    amount: charge.amount_cents / 100,
    currency: 'EUR',
    gateway: charge.gateway,
    orderReference: charge.order_reference,
    reference: charge.reference,
    createdAt: toIsoTimestamp(Number(charge.created_at)),
    checkedAt: charge.checked_at === null ? null : toIsoTimestamp(Number(charge.checked_at)),
    mismatch: mismatchOf(charge),
  };
}

/** What the operator found: the money was taken, or it was not. */
export type SettleFinding = 'paid' | 'failed';

export interface SettleResult {
  orderReference: string;
  /** `unchanged`: the charge was finished with this finding already (a second settle, or its callback first). */
  outcome: Exclude<ChargeOutcome, 'pending' | 'mismatch' | 'applied-already'> | 'unchanged';
  state: ChargeRow['state'];
  subscription: { id: number; status: string; periodNumber: number; periodEnd: string | null };
}

const FINDING_OF_STATE: Record<ChargeRow['state'], SettleFinding | null> = {
  pending: null,
  settled: 'paid',
  refund_due: 'paid',
  refunded: 'paid',
  refund_refused: 'paid',
  failed: 'failed',
};

/**
 * Applies the operator's finding to the pending charge of `orderReference`. `paymentReference` (required
 * for paid: the payment the merchant portal shows) is fetched from the charge's gateway, which must know
 * it as this charge's payment (its order reference and amount) in the state found; its status is then
 * applied as the gateway's callback would be. A failure without one is applied as a declined charge.
 * Refused (an Error naming why; the command exits 1), changing nothing: an unknown reference, a charge a run may still have in hand, one finished
 * otherwise than found; a charge finished as found already changes nothing and says so (`unchanged`).
 */
export async function settleCharge(
  db: Kysely<Database>,
  gateways: Gateways,
  input: { orderReference: string; finding: SettleFinding; paymentReference: string | null },
  now: number,
): Promise<SettleResult> {
  const charge = await findChargeByOrderReference(db, input.orderReference);
  if (!charge) throw new Error(`no subscription charge has the order reference ${input.orderReference}`);
  if (charge.state !== 'pending') return unchangedOrRefused(db, charge, input.finding);
  if (Number(charge.updated_at) >= now - STALE_CHARGE_MS)
    throw new Error(
      `charge ${charge.order_reference} was touched less than ${STALE_CHARGE_MS / 60_000} minutes ago and may be in a billing run's hands; nothing changed, try again later`,
    );
  const status = input.paymentReference === null ? null : await verifiedStatus(gateways, charge, input.paymentReference, input.finding);
  const applied = await inTransaction(db, (trx) =>
    status ? applyChargeStatus(trx, charge, status, now) : applyChargeOutcome(trx, charge, 'failed', null, now),
  );
  // Finished meanwhile (its callback, a billing run): what it was finished with tells whether the finding agrees.
  if (applied === 'applied-already' || applied === 'pending' || applied === 'mismatch')
    return unchangedOrRefused(db, (await findChargeByOrderReference(db, charge.order_reference))!, input.finding);
  return resultOf(db, charge.order_reference, applied);
}

/** The payment the operator named, as its gateway tells it now, when that agrees with the finding. */
async function verifiedStatus(
  gateways: Gateways,
  charge: ChargeRow,
  paymentReference: string,
  finding: SettleFinding,
): Promise<PaymentStatus> {
  const gateway = gateways[charge.gateway as GatewayName];
  if (!gateway)
    throw new Error(`the gateway ${charge.gateway} of charge ${charge.order_reference} is not configured here; nothing changed`);
  let status: PaymentStatus | null;
  try {
    status = await gateway.fetchStatus(paymentReference);
  } catch (error) {
    if (error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError)
      throw new Error(`${charge.gateway} did not answer about payment ${paymentReference} (${error.message}); nothing changed, try again`);
    throw error;
  }
  if (!status) throw new Error(`${charge.gateway} does not know the payment ${paymentReference}; nothing changed`);
  if (!paysCharge(status, charge))
    throw new Error(
      `${charge.gateway}'s payment ${paymentReference} is for ${status.orderReference}, ${(status.amountCents / 100).toFixed(2)} ${status.currency ?? 'EUR'}${status.ownAccount ? '' : " on another of the merchant's accounts"}, not for charge ${charge.order_reference}, ${(charge.amount_cents / 100).toFixed(2)} EUR on the shop's account; nothing changed`,
    );
  const found = outcomeOf(status);
  if ((found === 'settled' ? 'paid' : found) !== finding)
    throw new Error(`${charge.gateway} says the payment ${paymentReference} is ${status.state}, not ${finding}; nothing changed`);
  return status;
}

async function unchangedOrRefused(db: Kysely<Database>, charge: ChargeRow, finding: SettleFinding): Promise<SettleResult> {
  if (FINDING_OF_STATE[charge.state] !== finding)
    throw new Error(`charge ${charge.order_reference} is ${charge.state}, not pending: nothing changed`);
  return resultOf(db, charge.order_reference, 'unchanged');
}

async function resultOf(db: Kysely<Database>, orderReference: string, outcome: SettleResult['outcome']): Promise<SettleResult> {
  const charge = (await findChargeByOrderReference(db, orderReference))!;
  const sub = (await findSubscription(db, Number(charge.subscription_id)))!;
  return {
    orderReference,
    outcome,
    state: charge.state,
    subscription: {
      id: Number(sub.id),
      status: sub.status,
      periodNumber: sub.period_number,
      periodEnd: sub.period_end === null ? null : toIsoTimestamp(Number(sub.period_end)),
    },
  };
}
