import type { Db } from '../../db/database.js';
import { subscriptionLateSettlesTotal } from '../../infra/metrics/process-metrics.js';
import { paysInEuros, type PaymentStatus } from '../payments/index.js';
import { afterCommit } from '../../db/after-commit.js';
import { lockCardOwner, ownCard } from './cards.repository.js';
import { dropSavedCard } from './cards.service.js';
import {
  attemptsNotRefundedBefore,
  countCharges,
  findCharge,
  finishCharge,
  markOutcomeTold,
  moveCharge,
  recordMismatch,
  recordRefunded,
  setChargeReference,
  type ChargeRow,
} from './charges.repository.js';
import { addMonths, nextAttemptAt } from './periods.js';
import { countPaymentStatus } from './payments-metric.js';
import { markRefundDue, markRefunded } from './refunds.js';
import { queueCardRetiredMail, queueSubscriptionMail } from './subscriptions.mails.js';
import {
  findSubscription,
  lockSubscription,
  renewingSubscriptionsOfCard,
  updateSubscription,
  type SubscriptionRow,
} from './subscriptions.repository.js';

// What a charge's outcome does to its subscription, in the transaction that finishes the charge.
// The charge row is finished by a conditional update (pending -> settled/failed), so whoever
// applies an outcome second (a racing run, a callback after the answer) changes nothing.
// One exception, so that no money the customer paid is lost to them: a charge recorded failed that
// the gateway later reports settled (the bank approved it after all) is the paid charge when its
// subscription still waits for that period (FAILED, retrying) or, an upgrade's, for that upgrade
// (on the plan it started from, nothing tried or chosen since), and the customer, told the upgrade
// was declined, is mailed that it is active; else the money was taken for nothing and the charge is
// marked refund_due, its refund queued at once (refunds.ts, which mails the customer once it is
// made; the billing run refunds whatever a job left). A settled charge the subscription no longer waits for (another
// charge paid the period meanwhile) is marked so too. Each is a conditional update of the charge,
// so a repeated callback does nothing the second time.

export type ChargeOutcome =
  'settled' | 'failed' | 'pending' | 'applied-already' | 'mismatch' | 'refund-due' | 'taken-back' | 'part-refunded';

/**
 * The gateway's state in the charge's words: money taken, none taken, or not known yet. A payment refunded
 * (or charged back) is none taken: applied to a charge still pending (its answer and callback lost, the money
 * given back in the portal meanwhile), read as settled it started a period, or an upgrade, for money gone back.
 * To a charge finished already it changes nothing but a settled charge's money taken back whole (markTakenBack).
 */
export function outcomeOf(status: PaymentStatus): 'settled' | 'failed' | 'pending' {
  if (status.state === 'settled') return 'settled';
  return status.state === 'pending' ? 'pending' : 'failed';
}

/** Whether the gateway's payment is this charge's: its reference and sum in the shop's own euros, as an order's must be. */
export function paysCharge(status: PaymentStatus, charge: Pick<ChargeRow, 'order_reference' | 'amount_cents'>): boolean {
  return paysInEuros(status, charge.order_reference, charge.amount_cents);
}

/**
 * Applies the gateway's word on a charge's payment. One that does not pay it (another amount, currency or
 * account) moves nothing, as for an order: the charge stays pending and records what the gateway held, so
 * the operator sees it at once (`subscription charges --mismatched`) rather than a day later as stuck.
 * Counted in storefront_payments_total once `trx` commits (payments-metric.ts): callers open it with inTransaction.
 */
export async function applyChargeStatus(trx: Db, charge: ChargeRow, status: PaymentStatus, now: number): Promise<ChargeOutcome> {
  const outcome = await chargeStatusApplied(trx, charge, status, now);
  countPaymentStatus(trx, charge.gateway, status, 'subscription_charge', outcome);
  return outcome;
}

async function chargeStatusApplied(trx: Db, charge: ChargeRow, status: PaymentStatus, now: number): Promise<ChargeOutcome> {
  if (!paysCharge(status, charge)) {
    const { reference, orderReference, state, amountCents, currency, ownAccount } = status;
    await recordMismatch(trx, Number(charge.id), { reference, orderReference, state, amountCents, currency, ownAccount }, now);
    return 'mismatch';
  }
  const outcome = outcomeOf(status);
  if (outcome === 'pending') {
    await setChargeReference(trx, Number(charge.id), status.reference, now);
    return 'pending';
  }
  // A chargeback retires the charge's card (markTakenBack): the client's lock first, before the charge's row
  // is written, as a removal, a confirmation and an erasure take it before the rows they write.
  const clientAccountId = status.chargedBack ? await lockChargeOwner(trx, charge) : null;
  // What the payment's refunds came to, whatever else the status does: a settled charge refunded in part stays
  // settled, and what came back now is taken off this month's revenue (stats.service.ts). Refunds only add up, so a
  // repeated callback records nothing.
  const refundedMore =
    status.state === 'refunded' &&
    (await recordRefunded(trx, Number(charge.id), status.refundedCents, status.chargedBack ? 'chargeback' : 'refund', now));
  // Refunded whole: the customer saw the money taken and given back. In part, the rest goes back by the
  // shop's refund (markRefundDue below), whose mail tells it: the charge's own mail says declined.
  const failedBy: FailedBy =
    status.state === 'refunded' && status.refundedCents >= status.amountCents
      ? status.chargedBack
        ? 'chargedBack'
        : 'refunded'
      : 'declined';
  const applied = await applyChargeOutcome(trx, charge, outcome, status.reference, now, failedBy);
  // Settled now (not refunded: that money went back already) and finished before: a late settle.
  if (applied === 'applied-already' && status.state === 'settled') return applyLateSettle(trx, charge, status.reference, now);
  // A settled charge's money taken back whole at the gateway (a chargeback, a refund in its portal).
  if (applied === 'applied-already' && status.state === 'refunded' && status.refundedCents >= status.amountCents)
    return (await markTakenBack(trx, charge, clientAccountId, now)) ? 'taken-back' : applied;
  // Failed by a chargeback before the shop heard it settled: the disputed card goes as a settled charge's does, or
  // the renewal's retries charged it again. A renewal left retrying was mailed renewalChargedBack, which tells the card.
  if (applied === 'failed' && clientAccountId !== null) {
    const told = failedBy === 'chargedBack' ? await retryingRenewalOf(trx, charge) : null;
    await retireChargedCard(trx, charge, clientAccountId, now, told);
  }
  // Failed by this status, a refund in part made before it settled the charge: the rest is no payment either
  // and goes back (the refunder refunds what is still standing), as a late settle nothing waits for does.
  if (applied === 'failed' && status.state === 'refunded' && status.amountCents > status.refundedCents)
    return (await markRefundDue(trx, charge, 'failed', status.reference, now)) ? 'refund-due' : applied;
  // A refund in part of a charge recorded failed: the payment settled after all (that callback lost) and money is still
  // standing for a charge the shop holds failed. The rest goes back as for a late settle nothing waits for: a part is
  // no payment of the period, and kept, it was money nobody knew the shop had. Only from failed (markRefundDue).
  if (applied === 'applied-already' && status.state === 'refunded' && status.amountCents > status.refundedCents)
    if (await markRefundDue(trx, charge, 'failed', status.reference, now)) return 'refund-due';
  // A refund in part of a charge finished before: recorded above, its state unchanged.
  if (applied === 'applied-already' && refundedMore) return 'part-refunded';
  return applied;
}

/**
 * The subscription a failed renewal's charge left retrying its period (FAILED, the period before the charge's): the
 * one applyChargeOutcome mailed the charge's failure to with the retry's card (renewalChargedBack); null otherwise
 * (not a renewal, lapsed, paid meanwhile).
 */
async function retryingRenewalOf(trx: Db, charge: ChargeRow): Promise<number | null> {
  if (charge.purpose !== 'PERIOD') return null;
  const sub = await findSubscription(trx, Number(charge.subscription_id));
  return sub?.status === 'FAILED' && sub.period_number === charge.period_number - 1 ? Number(sub.id) : null;
}

/** Locks the client account of the charge's subscription (lockCardOwner); its id. Its account never changes, so the subscription is read unlocked. */
async function lockChargeOwner(trx: Db, charge: ChargeRow): Promise<number> {
  const sub = (await findSubscription(trx, Number(charge.subscription_id)))!;
  const clientAccountId = Number(sub.client_account_id);
  await lockCardOwner(trx, clientAccountId);
  return clientAccountId;
}

/**
 * A settled charge (or one the shop owes back: OWED_BACK) whose payment the gateway reports refunded whole though
 * the shop refunded nothing (the shop's own refunds go through refund_due): an operator refunded it in the gateway's
 * portal, or the cardholder disputed it and their bank took it back (a chargeback, EveryPay's `chargebacked`). Left
 * settled, `subscription stats` counted money the shop no longer has as revenue: marked refunded, as what the money
 * is. A chargeback also retires the card the charge was made with, as a removal does (dropSavedCard): card-network
 * rules say a disputed card (often a stolen one) is not billed again, so the subscriptions using it move to the
 * customer's other saved card, or to none and the existing "no card" rules (the renewal fails without a gateway
 * call, billingFailed mail). The subscription's current period stands. A portal refund leaves the card.
 * `cardOwner`: a chargeback's, the client account locked (lockChargeOwner); null for a portal refund. False when the
 * charge was moved already (a repeated callback: nothing mailed again, a card gone already left alone). A refund in part moves no state:
 * it is recorded (refunded_cents).
 */
async function markTakenBack(trx: Db, charge: ChargeRow, cardOwner: number | null, now: number): Promise<boolean> {
  // Money the shop owed back (refund_due) or could not give back (refund_refused, on the operator's list to pay by
  // hand) that the gateway shows given back whole: what a refunder finding it so does, refunded and the refund
  // mailed (refunds.ts); left, a refund_refused charge was paid back by hand a second time.
  // Charged back (cardOwner: a chargeback's), the mail says the bank gave it back, not the shop.
  const by = cardOwner === null ? 'gateway' : 'chargedBack';
  const moved = (await moveTakenBack(trx, charge, now)) || (await markRefunded(trx, charge, OWED_BACK, now, by)) === 'refunded';
  // A chargeback retires the card also when its charge was refunded already: a refunder that looked the payment up
  // before this callback came marked it (refunds.ts, which retires no card), or an operator paid it back by hand.
  // Retired with the move only, the disputed card stayed saved and the next renewal charged it again. So also when
  // the shop holds the charge failed (declined, the bank's settle unheard): its money is back with the customer, but
  // the retries charged the disputed card again. A card gone already (a repeated callback) is left alone (dropSavedCard).
  if (cardOwner !== null) await retireChargedCard(trx, charge, cardOwner, now);
  return moved;
}

/**
 * The card a charge charged back was made with goes as a removal takes it (dropSavedCard), by the transaction that
 * moved the charge. `cardOwner`: its client account, locked (lockChargeOwner). `told`: a subscription mailed of the
 * card already (renewalChargedBack), which is not mailed cardRetired besides.
 */
async function retireChargedCard(trx: Db, charge: ChargeRow, cardOwner: number, now: number, told: number | null = null): Promise<void> {
  // Read again: a charge sent again with another card names that one (billing.service.ts resendCharge).
  const cardId = (await findCharge(trx, Number(charge.id)))!.card_id;
  // Charges made before their card was recorded name none: that card is not known, and none is retired.
  if (cardId === null) return;
  const card = await ownCard(trx, cardOwner, Number(cardId));
  const renewing = await renewingSubscriptionsOfCard(trx, Number(cardId));
  // Only the transaction that retired it tells: a repeated callback (or two at once, which the owner's lock makes
  // one after the other) finds the card gone and mails nothing. Each subscription that renewed with it learns why,
  // and what its renewal is charged to now: another saved card, or none until the customer saves one (left
  // untold, the renewal failed on no card and the customer first heard of it as a failed renewal).
  if (!card || !(await dropSavedCard(trx, cardOwner, Number(cardId), now))) return;
  for (const id of renewing) if (id !== told) await queueCardRetiredMail(trx, id, card.last_four ?? '', now);
}

/** The states of a charge whose money the shop was to give back, which a refund whole at the gateway finishes. */
const OWED_BACK = ['refund_due', 'refund_refused'] as const;

/**
 * Settled -> refunded, and the charge's outcome counted as told: a settled first month mailed its start
 * with it (startPaidPeriod), and a request's deadline that found the charge refunded would mail that it did
 * not start, of a subscription running. False when the charge is settled no more.
 */
async function moveTakenBack(trx: Db, charge: ChargeRow, now: number): Promise<boolean> {
  if (!(await moveCharge(trx, Number(charge.id), 'settled', 'refunded', null, now))) return false;
  await markOutcomeTold(trx, Number(charge.id), now);
  return true;
}

/**
 * A charge recorded failed that the gateway now reports settled. A period's charge of a
 * subscription still retrying that period (FAILED) pays it: ACTIVE, the next period, as a retry
 * that settled. An upgrade's charge gives the better plan when the customer still waits for it
 * (upgradeStillWanted). Anything else (cancelled or ended meanwhile, the period paid by a retry, an
 * upgrade tried again or replaced) is refunded. Nothing when the charge is not failed (settled, or
 * marked already: a repeated callback). The subscription is locked first, as a cancellation, a plan
 * change and a renewal's claim lock it: none moves it (or adds a charge) between this read and the write.
 */
async function applyLateSettle(trx: Db, charge: ChargeRow, reference: string, now: number): Promise<ChargeOutcome> {
  const sub = await lockSubscription(trx, Number(charge.subscription_id));
  const paysPeriod =
    sub !== undefined && charge.purpose === 'PERIOD' && sub.status === 'FAILED' && sub.period_number === charge.period_number - 1;
  if (paysPeriod) {
    if (!(await moveCharge(trx, Number(charge.id), 'failed', 'settled', reference, now))) return 'applied-already';
    await startPaidPeriod(trx, sub, charge, now);
    afterCommit(trx, () => subscriptionLateSettlesTotal.inc({ outcome: 'applied' }));
    return 'settled';
  }
  if (sub !== undefined && charge.purpose === 'UPGRADE' && (await upgradeStillWanted(trx, sub, charge))) {
    if (!(await moveCharge(trx, Number(charge.id), 'failed', 'settled', reference, now))) return 'applied-already';
    await upgradePlan(trx, sub, charge, now);
    // The customer was told the upgrade was declined: they learn it is theirs after all. Told nothing yet (their
    // request died, and its deadline has not come), this is what they are told: the deadline mails nothing more.
    await queueSubscriptionMail(trx, Number(sub.id), 'upgradeApplied', now, Number(charge.id));
    await markOutcomeTold(trx, Number(charge.id), now);
    afterCommit(trx, () => subscriptionLateSettlesTotal.inc({ outcome: 'applied' }));
    return 'settled';
  }
  if (!(await markRefundDue(trx, charge, 'failed', reference, now))) return 'applied-already';
  return 'refund-due';
}

/**
 * Whether the customer still waits for the upgrade a declined charge was for, so that its money
 * settled late buys what it was paid for: the subscription is live (ACTIVE, not cancelled) in the
 * period the charge's prorated amount was for, still on the plan the upgrade started from, and
 * nothing replaced the upgrade: no later upgrade charge of that period (tried again, whatever its
 * outcome) and no downgrade chosen since. An upgrade charged before the charge named its starting
 * plan (from_plan_id null) cannot tell, and is refunded; so is one that was to end a trial (TRIAL, not
 * ACTIVE: trials.ts), whose customer was told the trial goes on, and whose renewal may be claimed since.
 */
async function upgradeStillWanted(trx: Db, sub: SubscriptionRow, charge: ChargeRow): Promise<boolean> {
  return (
    sub.status === 'ACTIVE' &&
    !sub.cancel_at_period_end &&
    sub.period_number === charge.period_number &&
    charge.from_plan_id !== null &&
    Number(sub.plan_id) === Number(charge.from_plan_id) &&
    sub.next_plan_id === null &&
    (await countCharges(trx, Number(sub.id), charge.period_number, 'UPGRADE')) === charge.attempt
  );
}

/** The better plan an upgrade's settled charge paid for, from now on. */
async function upgradePlan(trx: Db, sub: SubscriptionRow, charge: ChargeRow, now: number): Promise<void> {
  await updateSubscription(trx, Number(sub.id), { plan_id: charge.plan_id, next_plan_id: null, updated_at: now });
}

/**
 * An upgrade's settled charge during a trial paid the new plan's first month (trials.ts): the trial ends
 * and that month starts now, the trial's rest given up for the better plan at once; the next renewal
 * is the following period's.
 */
async function paidFromTrial(trx: Db, sub: SubscriptionRow, charge: ChargeRow, now: number): Promise<void> {
  await updateSubscription(trx, Number(sub.id), {
    status: 'ACTIVE',
    trial: false,
    plan_id: charge.plan_id,
    next_plan_id: null,
    period_number: sub.period_number + 1,
    period_start: now,
    period_end: addMonths(now, 1),
    failed_attempts: 0,
    next_attempt_at: null,
    updated_at: now,
  });
}

/** A settled charge its subscription no longer waits for: the money is to go back (refund_due). */
async function refundDue(trx: Db, charge: ChargeRow, now: number): Promise<ChargeOutcome> {
  await markRefundDue(trx, charge, 'settled', null, now);
  return 'refund-due';
}

/** The period a settled period's charge paid: ACTIVE, following the last period without a gap (or from now, the first). */
async function startPaidPeriod(trx: Db, sub: SubscriptionRow, charge: ChargeRow, now: number): Promise<void> {
  const id = Number(sub.id);
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
}

/**
 * Why a charge failed, which its mail tells: `declined` (no money taken), or `refunded`: the gateway took the
 * payment and gave it back before it settled the charge (an operator's refund in the portal, a chargeback),
 * which the customer sees on their statement as a charge and a refund, of a card that works.
 */
export type FailedBy = 'declined' | 'refunded' | 'chargedBack';

export async function applyChargeOutcome(
  trx: Db,
  charge: ChargeRow,
  outcome: 'settled' | 'failed',
  reference: string | null,
  now: number,
  failedBy: FailedBy = 'declined',
): Promise<ChargeOutcome> {
  const finished = await finishCharge(trx, Number(charge.id), outcome, reference, now);
  if (!finished) return 'applied-already';
  // Locked, as a late settle locks it before it moves the period: read unlocked, a late settle of an earlier
  // attempt paying the same period in flight (on PostgreSQL) went unseen, and this charge paid that period
  // again over it, the customer charged twice and nothing refunded. The charge's row first: nothing that
  // holds the subscription waits for a pending charge's row.
  const sub = (await lockSubscription(trx, Number(charge.subscription_id)))!;
  const id = Number(sub.id);
  if (charge.purpose === 'UPGRADE') {
    // The better plan from now on, if the subscription is still in the period the upgrade paid for.
    // A customer told the payment was being processed (503) is mailed the outcome, in this
    // transaction: only the one that finished the charge gets here. Money taken for an upgrade that
    // no longer applies is refunded, and that refund mailed (refunds.ts).
    if (outcome !== 'settled') {
      const told = failedBy === 'declined' ? 'upgradeDeclined' : 'upgradeRefunded';
      if (finished.toldPending) await queueSubscriptionMail(trx, id, told, now, Number(charge.id));
      return outcome;
    }
    if (sub.period_number === charge.period_number && ['ACTIVE', 'TRIAL'].includes(sub.status)) {
      await (sub.status === 'TRIAL' ? paidFromTrial(trx, sub, charge, now) : upgradePlan(trx, sub, charge, now));
      if (finished.toldPending) await queueSubscriptionMail(trx, id, 'upgradeConfirmed', now, Number(charge.id));
      return outcome;
    }
    return refundDue(trx, charge, now);
  }
  if (sub.period_number !== charge.period_number - 1) {
    // Paid meanwhile (a late settle of an earlier attempt): this money is the period's second.
    return outcome === 'settled' ? refundDue(trx, charge, now) : outcome;
  }
  if (outcome === 'settled') {
    await startPaidPeriod(trx, sub, charge, now);
    return 'settled';
  }
  if (sub.status === 'PENDING') {
    // The first charge was declined: the subscription never started. A customer told it was being
    // processed (201 PENDING) is mailed so, in this transaction, as an upgrade's outcome is above;
    // one whose request heard the decline (409) is not. A settled first month mails its start (startPaidPeriod).
    await updateSubscription(trx, id, { status: 'ENDED', live_key: null, ended_at: now, updated_at: now });
    const told = failedBy === 'declined' ? 'startDeclined' : 'startRefunded';
    if (finished.toldPending) await queueSubscriptionMail(trx, id, told, now, Number(charge.id));
    return 'failed';
  }
  const failedAttempts = sub.failed_attempts + 1;
  // The attempt that failed was due at the period's end (the first) or at its retry's time, which only this
  // transition writes: a failure learned over an hour after it was due counts the rest from now (periods.ts).
  const attemptDueAt = sub.failed_attempts > 0 && sub.next_attempt_at !== null ? Number(sub.next_attempt_at) : Number(sub.period_end);
  const retryAt = nextAttemptAt(failedAttempts, attemptDueAt, now);
  if (retryAt === null) {
    await updateSubscription(trx, id, {
      status: 'LAPSED',
      live_key: null,
      failed_attempts: failedAttempts,
      next_attempt_at: null,
      ended_at: now,
      updated_at: now,
    });
    // Told in this transaction, as the first decline is: only the one that finished the charge gets here.
    await queueSubscriptionMail(trx, id, 'lapsed', now);
    return 'failed';
  }
  await updateSubscription(trx, id, { status: 'FAILED', failed_attempts: failedAttempts, next_attempt_at: retryAt, updated_at: now });
  // A payment refunded before it settled is told as such on every attempt (the customer saw the money taken and
  // given back), and not as a card that could not be charged. One charged back is told as the bank's doing, with what
  // the retry charges (renewalChargedBack, rendered when sent: the other saved card the chargeback's retirement of the
  // disputed card moved the subscription to, or a new card to save before the retry; retireChargedCard mails it no
  // cardRetired besides). A decline is told at the period's first one (billingFailed), also after attempts refunded
  // or charged back: counted by attempts, a retry after a chargeback that found no card (or declined the other card)
  // was mailed nothing, and the customer's first word of it was the lapse.
  if (failedBy === 'chargedBack') await queueSubscriptionMail(trx, id, 'renewalChargedBack', now, Number(charge.id));
  else if (failedBy === 'refunded') await queueSubscriptionMail(trx, id, 'renewalRefunded', now, Number(charge.id));
  else if ((await attemptsNotRefundedBefore(trx, id, charge.period_number, charge.attempt)) === 0)
    await queueSubscriptionMail(trx, id, 'billingFailed', now);
  return 'failed';
}
