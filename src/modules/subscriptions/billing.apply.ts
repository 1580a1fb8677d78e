import type { Db } from '../../db/database.js';
import type { PaymentStatus } from '../payments/index.js';
import { finishCharge, setChargeReference, type ChargeRow } from './charges.repository.js';
import { addMonths, nextAttemptAt } from './periods.js';
import { queueSubscriptionMail } from './subscriptions.mails.js';
import { findSubscription, updateSubscription } from './subscriptions.repository.js';

// What a charge's outcome does to its subscription, in the transaction that finishes the charge.
// The charge row is finished by a conditional update (pending -> settled/failed), so whoever
// applies an outcome second (a racing run, a callback after the answer) changes nothing.

export type ChargeOutcome = 'settled' | 'failed' | 'pending' | 'applied-already' | 'mismatch';

/** The gateway's state in the charge's words: money taken, none taken, or not known yet. */
function outcomeOf(status: PaymentStatus): 'settled' | 'failed' | 'pending' {
  if (status.state === 'settled' || status.state === 'refunded') return 'settled';
  return status.state === 'pending' ? 'pending' : 'failed';
}

export async function applyChargeStatus(trx: Db, charge: ChargeRow, status: PaymentStatus, now: number): Promise<ChargeOutcome> {
  if (status.orderReference !== charge.order_reference || status.amountCents !== charge.amount_cents) return 'mismatch';
  const outcome = outcomeOf(status);
  if (outcome === 'pending') {
    await setChargeReference(trx, Number(charge.id), status.reference, now);
    return 'pending';
  }
  return applyChargeOutcome(trx, charge, outcome, status.reference, now);
}

export async function applyChargeOutcome(
  trx: Db,
  charge: ChargeRow,
  outcome: 'settled' | 'failed',
  reference: string | null,
  now: number,
): Promise<ChargeOutcome> {
  if (!(await finishCharge(trx, Number(charge.id), outcome, reference, now))) return 'applied-already';
  const sub = (await findSubscription(trx, Number(charge.subscription_id)))!;
  const id = Number(sub.id);
  if (charge.purpose === 'UPGRADE') {
    // The better plan from now on, if the subscription is still in the period the upgrade paid for.
    if (outcome === 'settled' && sub.period_number === charge.period_number && ['ACTIVE', 'TRIAL'].includes(sub.status))
      await updateSubscription(trx, id, { plan_id: charge.plan_id, next_plan_id: null, updated_at: now });
    return outcome;
  }
  if (sub.period_number !== charge.period_number - 1) return outcome;
  if (outcome === 'settled') {
    const first = sub.status === 'PENDING';
    // A renewal's period follows the last one without a gap, also after retries (access went on).
    const start = first ? now : Number(sub.period_end);
    await updateSubscription(trx, id, {
      status: 'ACTIVE',
      trial: false,
      plan_id: charge.plan_id,
      next_plan_id: sub.next_plan_id === charge.plan_id ? null : sub.next_plan_id,
      period_number: charge.period_number,
      period_start: start,
      period_end: addMonths(start, 1),
      failed_attempts: 0,
      next_attempt_at: null,
      updated_at: now,
    });
    if (first) await queueSubscriptionMail(trx, id, 'purchased', now);
    return 'settled';
  }
  if (sub.status === 'PENDING') {
    // The first charge was declined: the subscription never started.
    await updateSubscription(trx, id, { status: 'ENDED', live_key: null, ended_at: now, updated_at: now });
    return 'failed';
  }
  const failedAttempts = sub.failed_attempts + 1;
  const retryAt = nextAttemptAt(failedAttempts, Number(sub.period_end));
  if (retryAt === null) {
    await updateSubscription(trx, id, {
      status: 'LAPSED',
      live_key: null,
      failed_attempts: failedAttempts,
      next_attempt_at: null,
      ended_at: now,
      updated_at: now,
    });
    return 'failed';
  }
  await updateSubscription(trx, id, { status: 'FAILED', failed_attempts: failedAttempts, next_attempt_at: retryAt, updated_at: now });
  if (failedAttempts === 1) await queueSubscriptionMail(trx, id, 'billingFailed', now);
  return 'failed';
}
