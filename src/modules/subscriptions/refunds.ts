import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Logger } from '../../infra/logger.js';
import { subscriptionLateSettlesTotal } from '../../infra/metrics/process-metrics.js';
import {
  GatewayRefusedError,
  GatewayUnavailableError,
  refundOrLookUp,
  type GatewayRefundAnswer,
  type GatewayName,
  type Gateways,
  type PaymentGateway,
  type PaymentStatus,
} from '../payments/index.js';
import { afterCommit, inTransaction } from '../../db/after-commit.js';
import {
  chargesToRefund,
  claimRefundTry,
  findCharge,
  markChargeRefundRefused,
  moveCharge,
  recordRefunded,
  recordRefundedWhole,
  type ChargeRow,
} from './charges.repository.js';
import type { ChargeRefundKind, ChargeState } from './subscriptions.tables.js';
import { queueSubscriptionMail } from './subscriptions.mails.js';

// Money a charge took for nothing goes back (billing.apply.ts decides when: a late settle the
// subscription no longer wanted). markRefundDue is the one way into refund_due, and it queues the
// refund of that charge in the same transaction, so the customer's money goes back as soon as a
// worker takes the job, not at the next billing run; each billing run still refunds whatever is
// left (a job that died, a gateway that was down). Both refund a charge through refundCharge,
// which mails the customer in the transaction that marks the charge refunded: once, after the
// money went back, however many tries it took.

export const SUBSCRIPTION_REFUND_JOB = 'subscription.refund';
/** Tries of the job (about ten minutes of backoff in all); the billing run goes on after them. */
const REFUND_JOB_ATTEMPTS = 6;
/**
 * How long a charge stays refund_due while no refunder can refund it (the gateway down or refusing the shop's
 * credentials, not configured here, no payment reference) before it is handed to the operator as refund_refused:
 * left refund_due for good, an operator who paid it back by hand could not record it (mark-refunded takes
 * refund_refused only), and a gateway back later refunded it a second time. Days, not tries: the hourly run,
 * `subscription bill` by hand and the job try at their own pace, and days are what the customer waits; three
 * outlast an outage over a weekend. Measured from when it became refund_due (its updated_at: nothing else moves
 * that while it is refund_due; `retry-refund` starts it again).
 */
export const REFUND_DUE_GIVE_UP_MS = 3 * 86_400_000;
const BATCH = 500;

/**
 * Marks a charge settled for nothing refund_due (from failed, a late settle, with the gateway's
 * reference; or from settled, paid meanwhile by another charge) and queues its refund, in the
 * caller's transaction. False, queueing nothing, when the charge is not in `from` (a repeated
 * callback, a racing run): the refund was queued by whoever moved it.
 */
export async function markRefundDue(
  trx: Db,
  charge: Pick<ChargeRow, 'id'>,
  from: 'failed' | 'settled',
  reference: string | null,
  now: number,
): Promise<boolean> {
  if (!(await moveCharge(trx, Number(charge.id), from, 'refund_due', reference, now))) return false;
  await queueRefund(trx, charge, now);
  afterCommit(trx, () => subscriptionLateSettlesTotal.inc({ outcome: 'refund_due' }));
  return true;
}

/**
 * Sends a refund_refused charge back to refund_due (the operator had the gateway put right what made it
 * refuse) and queues its refund, as markRefundDue does, in the caller's transaction; false, queueing
 * nothing, when it is not refund_refused. Not counted again as a late settle: it was counted when marked.
 */
export async function retryRefusedRefund(trx: Db, charge: Pick<ChargeRow, 'id'>, now: number): Promise<boolean> {
  if (!(await moveCharge(trx, Number(charge.id), 'refund_refused', 'refund_due', null, now))) return false;
  await queueRefund(trx, charge, now);
  return true;
}

function queueRefund(trx: Db, charge: Pick<ChargeRow, 'id'>, now: number) {
  return enqueueJob(
    trx,
    { type: SUBSCRIPTION_REFUND_JOB, payload: { chargeId: Number(charge.id) } },
    { maxAttempts: REFUND_JOB_ATTEMPTS, now },
  );
}

export type RefundOutcome = 'refunded' | 'refused' | 'moved-already' | 'left';

/** Where a refunder tells a refund left for later (warn) and one the gateway refused for good (error). */
export type RefundLog = Pick<Logger, 'warn' | 'error'>;

/**
 * Refunds one refund_due charge whole through its gateway under a key of its own (the same for every
 * try and every refunder), then marks it refunded; of a payment an operator refunded in part in the
 * gateway's portal, the rest: a payment is refunded only once nothing of it is left standing. The payment is looked up first, so a
 * refunder that died after the refund (or a refund made at the gateway by hand) marks it without
 * refunding twice. Two refunders at once (the job and a billing run) both looking it up settled send
 * the same refund: the gateway refuses the second (its key, or nothing left standing), which then
 * looks the payment up again and finds it refunded. A refusal of what was asked after which
 * money is still standing is the gateway's answer for good (EveryPay's 422: the payment can no
 * longer be refunded): the charge becomes refund_refused, for the operator, and is not sent again; so
 * does one whose payment the gateway answers it cannot refund (unknown to it, failed, abandoned, voided).
 * `refunded`, `refused`: this refunder moved it. `moved-already`: another refunder moved it first.
 * `left`: the gateway could not refund it now (logged and counted); it stays refund_due, until REFUND_DUE_GIVE_UP_MS
 * after it became so, when such a try makes it refund_refused (`refused`), for the operator.
 */
export async function refundCharge(
  db: Kysely<Database>,
  gateways: Gateways,
  charge: ChargeRow,
  now: number,
  log?: RefundLog,
): Promise<RefundOutcome> {
  const gateway = gateways[charge.gateway as GatewayName];
  let answer: RefunderAnswer | null = null;
  let leftBecause: string | null = null;
  try {
    if (gateway && charge.reference) answer = await refundedPayment(gateway, charge, charge.reference);
  } catch (err) {
    if (!(err instanceof GatewayUnavailableError || err instanceof GatewayRefusedError)) throw err;
    leftBecause = err.message;
    log?.warn({ err, chargeId: Number(charge.id) }, 'subscription billing: the refund of a charge settled for nothing is left for later');
  }
  const status = answer?.status;
  if (status && refundedWhole(status, charge)) {
    // Found charged back (its callback not come yet): the customer's bank gave it back, not this refunder.
    const by = status.chargedBack ? 'chargedBack' : 'gateway';
    const marked = await inTransaction(db, (trx) => markRefunded(trx, charge, REFUNDER_FROM, now, by));
    // The gateway's callback of this refunder's own refund may mark it first (billing.apply.ts markTakenBack): the
    // refund is still this one's. A refund refused (another refunder's went first) or not sent is not.
    return marked === 'moved-already' && answer!.sent && answer!.refusal === null ? 'refunded' : marked;
  }
  if (answer?.refusal && status && standing(status, charge) > 0)
    return inTransaction(db, (trx) => markRefundRefused(trx, charge, answer.refusal!.message, answer.refusal, now, log, status));
  // The gateway answered that the payment is none it can refund: it does not know it (EveryPay's own
  // 404), or it shows it failed, abandoned or voided since it settled. Sent again by every run, such a
  // charge was a look-up a run for good; whether money is owed is the operator's to find out.
  const unrefundable = answer ? unrefundableReason(charge, answer.status) : null;
  if (unrefundable) return inTransaction(db, (trx) => markRefundRefused(trx, charge, unrefundable, null, now, log, status));
  if (!gateway || !charge.reference)
    log?.warn(
      { chargeId: Number(charge.id), gateway: charge.gateway },
      'subscription billing: a charge to refund has no configured gateway',
    );
  if (now - Number(charge.updated_at) >= REFUND_DUE_GIVE_UP_MS) {
    const reason = `not refunded in ${REFUND_DUE_GIVE_UP_MS / 86_400_000} days of tries; the last: ${leftBecause ?? whyNotRefunded(charge, gateway, answer)}`;
    return inTransaction(db, (trx) => markRefundRefused(trx, charge, reason, null, now, log, status));
  }
  subscriptionLateSettlesTotal.inc({ outcome: 'refund_failed' });
  return 'left';
}

/**
 * A refunder marks refunded what the gateway says is refunded: a refund_due charge, or one another
 * refunder recorded refused meanwhile (its refund under the same key refused while this one's went
 * through); the gateway's word that the money went back stands over that refusal.
 */
const REFUNDER_FROM = ['refund_due', 'refund_refused'] as const;

/**
 * How the money of a charge the shop owed back went back, which its mail tells: `gateway`, the shop's refund (or one
 * made in the gateway's portal); `byHand`, the operator paid it back outside the gateway's refund (perhaps by bank
 * transfer), so the mail does not say it went back to the card; `chargedBack`, the customer's bank took it back on
 * their dispute, which the shop did not refund, and the mail says so.
 */
export type RefundedBy = 'gateway' | 'byHand' | 'chargedBack';

const REFUND_KINDS = { gateway: 'refund', byHand: 'by_hand', chargedBack: 'chargeback' } as const satisfies Record<
  RefundedBy,
  ChargeRefundKind
>;

/**
 * The charge refunded, and its customer told (a refund of an upgrade names it; of a period's
 * charge, the plan), once: the conditional move is made by one refunder only. `from`: the states a
 * refund may find it in (a refunder's, or the operator's refund_refused one, refunded by hand).
 */
export async function markRefunded(
  trx: Db,
  charge: Pick<ChargeRow, 'id' | 'subscription_id' | 'purpose'>,
  from: readonly Exclude<ChargeState, 'pending'>[],
  now: number,
  by: RefundedBy = 'gateway',
): Promise<'refunded' | 'moved-already'> {
  if (!(await moveCharge(trx, Number(charge.id), from, 'refunded', null, now))) return 'moved-already';
  // What of it had not gone back yet is a refund of now (the charge's refunded sum, which its customer's data shows).
  await recordRefundedWhole(trx, Number(charge.id), REFUND_KINDS[by], now);
  const upgrade = charge.purpose === 'UPGRADE';
  const kind =
    by === 'chargedBack'
      ? 'chargedBack'
      : by === 'byHand'
        ? upgrade
          ? 'upgradeRefundedByHand'
          : 'paymentRefundedByHand'
        : upgrade
          ? 'upgradeRefunded'
          : 'paymentRefunded';
  await queueSubscriptionMail(trx, Number(charge.subscription_id), kind, now, Number(charge.id));
  afterCommit(trx, () => subscriptionLateSettlesTotal.inc({ outcome: 'refunded' }));
  return 'refunded';
}

/**
 * The charge refund_refused with the gateway's refusal, by one refunder only; told at error level (an
 * operator has the money to give back: `subscription charges --refund-refused`) and counted once committed.
 * What the payment's refunds came to as the refunder's look-up (`status`) showed them is recorded with it: the
 * operator pays back by hand what is left, and a refund in part whose callback was lost is known only so.
 */
async function markRefundRefused(
  trx: Db,
  charge: ChargeRow,
  refusal: string,
  err: GatewayRefusedError | null,
  now: number,
  log: RefundLog | undefined,
  status: PaymentStatus | null | undefined,
): Promise<RefundOutcome> {
  if (!(await markChargeRefundRefused(trx, Number(charge.id), refusal.slice(0, REFUSAL_CHARS), now))) return 'moved-already';
  if (status?.state === 'refunded' && status.orderReference === charge.order_reference)
    await recordRefunded(trx, Number(charge.id), status.refundedCents, status.chargedBack ? 'chargeback' : 'refund', now);
  afterCommit(trx, () => {
    subscriptionLateSettlesTotal.inc({ outcome: 'refund_refused' });
    log?.error(
      { ...(err ? { err } : { refusal }), chargeId: Number(charge.id), orderReference: charge.order_reference },
      'subscription billing: the gateway refused the refund of a charge settled for nothing; it is not tried again (storefront subscription charges --refund-refused)',
    );
  });
  return 'refused';
}

/** Why a try that met no error refunded nothing: no gateway to ask, no payment to name, or the payment as the gateway showed it. */
function whyNotRefunded(charge: ChargeRow, gateway: PaymentGateway | undefined, answer: GatewayRefundAnswer | null): string {
  if (!gateway) return `the gateway ${charge.gateway} is not configured here`;
  if (!charge.reference) return 'the charge names no payment of its gateway';
  return `the gateway shows the payment ${answer?.status?.state ?? 'unknown'}, nothing refunded`;
}

/** States of a payment the gateway will not refund: the money was never taken, or went back otherwise. */
const UNREFUNDABLE: readonly PaymentStatus['state'][] = ['failed', 'abandoned', 'voided'];

/** What is kept on the charge as its refusal when the gateway's answer shows its payment cannot be refunded; null when it can. */
function unrefundableReason(charge: ChargeRow, status: PaymentStatus | null): string | null {
  if (status === null) return 'the gateway does not know the payment: nothing to refund through it';
  if (status.orderReference !== charge.order_reference || !UNREFUNDABLE.includes(status.state)) return null;
  return `the gateway shows the payment ${status.state}: nothing to refund through it`;
}

/** The refusal kept on the charge: the gateway's words are short (EveryPay's: code and message, 200 characters at most). */
const REFUSAL_CHARS = 500;

/** A refunder's answer from its gateway; `sent`: it asked for a refund (something was left standing). */
type RefunderAnswer = GatewayRefundAnswer & { sent: boolean };

/** The payment as it stands after its refund: refunded now unless it was already (or is not refundable). */
async function refundedPayment(gateway: PaymentGateway, charge: ChargeRow, reference: string): Promise<RefunderAnswer> {
  const found = await gateway.fetchStatus(reference);
  const left = found ? standing(found, charge) : 0;
  if (left === 0) return { status: found, refusal: null, sent: false };
  // What is still standing: the whole charge, or the rest of a payment an operator refunded in part in
  // the gateway's portal (taken for refunded whole, the rest was kept and the customer told it came back).
  // Refused: another refunder's request under the same key went first (or nothing is left standing, or
  // the gateway will not refund this payment); the payment as it is now tells whether it is refunded.
  return { ...(await refundOrLookUp(gateway, reference, left, lateRefundKey(charge))), sent: true };
}

/** The cents of the charge's payment the gateway still holds: 0 unless it is this charge's, settled or refunded in part. */
function standing(status: PaymentStatus, charge: Pick<ChargeRow, 'order_reference'>): number {
  if (status.orderReference !== charge.order_reference) return 0;
  if (status.state === 'settled') return status.amountCents;
  return status.state === 'refunded' ? Math.max(0, status.amountCents - status.refundedCents) : 0;
}

/** Whether the gateway shows the charge's payment refunded with nothing left standing. */
const refundedWhole = (status: PaymentStatus, charge: Pick<ChargeRow, 'order_reference'>) =>
  status.state === 'refunded' && status.orderReference === charge.order_reference && standing(status, charge) === 0;

/**
 * The refund's key: the same for every try while the charge is refund_due (a job or run that died after the
 * gateway call repeats it, and the gateway makes it once), a new one once an operator sent a refused refund
 * back (`subscription retry-refund`): EveryPay derives the request's nonce from the key and takes no nonce
 * twice, and whether a refused request's nonce counts as taken is not documented. refund_refused_at, the
 * last refusal's time, stays with the charge when it is sent back.
 */
const lateRefundKey = (charge: Pick<ChargeRow, 'idempotency_key' | 'refund_refused_at'>) =>
  `${charge.idempotency_key}-late${charge.refund_refused_at === null ? '' : `-${charge.refund_refused_at}`}`;

/**
 * The billing run's part: up to `batch` refund_due charges, the least recently tried first (each recorded
 * tried before its gateway is asked, whatever the answer: one that cannot be refunded now goes behind the
 * others); how many it refunded, how many the gateway refused for good (refund_refused now), and how many are left.
 */
export async function refundCharges(
  db: Kysely<Database>,
  gateways: Gateways,
  now: number,
  log?: RefundLog,
  batch = BATCH,
): Promise<{ refunded: number; refused: number; left: number }> {
  const result = { refunded: 0, refused: 0, left: 0 };
  for (const charge of await chargesToRefund(db, batch)) {
    // Taken by another run meanwhile (or refunded by its job): that one tries it.
    if (!(await claimRefundTry(db, charge, now))) continue;
    const outcome = await refundCharge(db, gateways, charge, now, log);
    if (outcome === 'refunded') result.refunded += 1;
    else if (outcome === 'refused') result.refused += 1;
    else if (outcome === 'left') result.left += 1;
  }
  return result;
}

/**
 * The job queued with the mark: refunds that one charge. Nothing when it is refund_due no more (refunded
 * or refused by a billing run, or an earlier try of this job). A refund the gateway could not make now
 * fails the try, so the worker tries again later; after the last try the billing run still refunds it.
 * One the gateway refused for good ends the job (`refused`): trying again meets the same refusal.
 */
export function subscriptionRefundHandler(deps: { db: Kysely<Database>; gateways: Gateways; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: { chargeId: number }, context) => {
    const charge = await findCharge(deps.db, Number(job.chargeId));
    if (charge?.state !== 'refund_due') return 'skipped';
    // The runner's time, as a billing run's refund takes its run's: the refund and its mail are stamped by the app's clock.
    const outcome = await refundCharge(deps.db, deps.gateways, charge, clock.now(), context.log);
    if (outcome === 'left') throw new Error(`the refund of subscription charge ${job.chargeId} is left for later`);
    return outcome;
  };
}
