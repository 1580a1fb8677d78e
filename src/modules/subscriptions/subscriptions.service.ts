import type { Kysely } from 'kysely';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { Language } from '../../i18n/index.js';
import { conflict, DomainError, invalidField, notFound } from '../../infra/domain-error.js';
import type { Gateways } from '../payments/index.js';
import { decidedOutcome, newCharge, runCharge, STALE_CHARGE_MS } from './billing.service.js';
import type { CardTokens } from './card-tokens.js';
import { activeCardsOf, chargeableToken, ownCard, type CardRow } from './cards.repository.js';
import type { ChargeOutcome } from './billing.apply.js';
import { countCharges, insertChargeOnce, markOutcomeTold, markPendingTold, pendingChargeOf, type ChargeRow } from './charges.repository.js';
import { RESUBMIT_WINDOW_MS } from '../../infra/resubmit.js';
import { DAY_MS, familyOf, proratedCents } from './periods.js';
import { planWire } from './plans.js';
import { queueAnswerDeadline, queueSubscriptionMail } from './subscriptions.mails.js';
import { trialEndOnPlan } from './trials.js';
import {
  findPlan,
  findSubscription,
  hadTrial,
  insertSubscription,
  LIVE,
  liveSubscription,
  lockOwnSubscription,
  plansByIds,
  recordTrial,
  subscriptionsPageOf,
  trialSubjects,
  updateSubscription,
  type PlanRow,
  type SubscriptionRow,
} from './subscriptions.repository.js';

// Subscribing, switching plans and cancelling. Rules: one live subscription per client account
// and family (audio, e-book), held by a unique `live_key`; a trial only when neither the user nor
// the client account has had one for that kind of plan; else the first month is charged at once
// through the saved card. An upgrade is charged now for the days left (periods.ts); during a trial
// it keeps the trial only as far as the new plan's own trial reaches, else charges the new plan's
// first month now (trials.ts); a downgrade waits for the period's (or trial's) end; a cancel keeps
// access until the period's end.

export interface Subscriber {
  userId: number;
  clientAccountId: number;
  storeCode: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export function subscriptionWire(sub: SubscriptionRow, plans: Map<number, PlanRow>, language: Language) {
  return {
    id: Number(sub.id),
    status: sub.status,
    plan: planWire(plans.get(Number(sub.plan_id))!, language),
    nextPlanId: sub.next_plan_id === null ? null : Number(sub.next_plan_id),
    cardId: sub.card_id === null ? null : Number(sub.card_id),
    trial: Boolean(sub.trial),
    currentPeriodStart: iso(sub.period_start),
    currentPeriodEnd: iso(sub.period_end),
    cancelAtPeriodEnd: Boolean(sub.cancel_at_period_end),
    nextAttemptAt: iso(sub.next_attempt_at),
    createdAt: iso(sub.created_at)!,
    endedAt: iso(sub.ended_at),
  };
}

async function wireOf(db: Db, subs: SubscriptionRow[], language: Language) {
  const plans = await plansByIds(db, [...new Set(subs.map((sub) => Number(sub.plan_id)))]);
  const byId = new Map(plans.map((plan) => [Number(plan.id), plan]));
  return subs.map((sub) => subscriptionWire(sub, byId, language));
}

/** One page of the caller's subscriptions, newest first, and how many there are. */
export async function listSubscriptions(db: Db, who: Subscriber, page: { offset: number; perPage: number }, language: Language) {
  const { rows, total } = await subscriptionsPageOf(db, who.clientAccountId, page);
  return { items: await wireOf(db, rows, language), total };
}

async function subscriptionById(db: Db, id: number, language: Language) {
  return (await wireOf(db, [(await findSubscription(db, id))!], language))[0]!;
}

/** A plan the caller's store sells, or the 422 naming the field. */
async function sellablePlan(db: Db, planId: number, storeCode: string): Promise<PlanRow> {
  const plan = await findPlan(db, planId);
  if (!plan || !plan.is_active || !plan.stores.split(',').includes(storeCode))
    throw invalidField('planId', 'subscriptions.planNotFound', { id: planId });
  return plan;
}

/** What charges a saved card: its gateway, and what opens its token. */
export interface CardPayer {
  gateways: Gateways;
  cardTokens: CardTokens;
}

/**
 * The token to charge `card` with now. One that does not open (the card token keys lost or changed,
 * logged for the operator) is refused before any charge: the customer saves the card again.
 */
function tokenToCharge(payer: CardPayer, card: CardRow, field: string): string {
  const token = chargeableToken(payer.cardTokens, card);
  if (token === null) throw invalidField(field, 'subscriptions.cardUnusable', { id: Number(card.id) });
  return token;
}

export async function subscribe(
  db: Kysely<Database>,
  payer: CardPayer,
  who: Subscriber,
  input: { planId: number; cardId?: number },
  language: Language,
  now: number,
) {
  const claim = await db
    .transaction()
    .execute(async (trx) => {
      // The client's lock first, as every writer of its cards takes it: the card is read (and the
      // subscription naming it inserted) either before a removal of it, which then moves this
      // subscription to the card left, or after, and is refused as gone. Read unlocked, a removal
      // committed between the read and the insert left the subscription naming a deleted card.
      await lockLiveClientAccount(trx, who.clientAccountId);
      const plan = await sellablePlan(trx, input.planId, who.storeCode);
      const liveKey = `${who.clientAccountId}:${familyOf(plan.kind)}`;
      // The same request again (a double click, a retry of an answer lost on its way): the subscription the
      // first one made is the answer, as a checkout sent twice answers its order. A first month still with the
      // bank is answered PENDING, and recorded as told so: its outcome is mailed (billing.apply.ts).
      const live = await liveSubscription(trx, liveKey);
      if (live && repeatsSubscribing(live, Number(plan.id), input, now)) {
        const pending = live.status === 'PENDING' ? await pendingChargeOf(trx, Number(live.id)) : undefined;
        if (pending) await markPendingTold(trx, Number(pending.id), now);
        return { id: Number(live.id), charge: null, token: null, repeat: true };
      }
      const card =
        input.cardId === undefined
          ? (await activeCardsOf(trx, who.clientAccountId)).find((c) => c.is_default)
          : await ownCard(trx, who.clientAccountId, input.cardId);
      if (input.cardId !== undefined && card?.state !== 'ACTIVE')
        throw invalidField('cardId', 'subscriptions.cardNotFound', { id: input.cardId });
      if (!card) throw invalidField('cardId', 'subscriptions.cardNeeded');
      const trial = plan.trial_days > 0 && !(await hadTrial(trx, who.userId, who.clientAccountId, plan.kind));
      const id = await insertSubscription(trx, {
        client_account_id: who.clientAccountId,
        user_id: who.userId,
        store_code: who.storeCode,
        plan_id: Number(plan.id),
        status: trial ? 'TRIAL' : 'PENDING',
        live_key: liveKey,
        card_id: Number(card.id),
        trial,
        period_number: 0,
        period_start: now,
        period_end: trial ? now + plan.trial_days * DAY_MS : now,
        next_plan_id: null,
        cancel_at_period_end: false,
        failed_attempts: 0,
        next_attempt_at: null,
        created_at: now,
        updated_at: now,
        ended_at: null,
      });
      if (trial) {
        // The user's other account took this kind's trial since it was read (PostgreSQL; SQLite writes
        // one at a time): that account's subscription is not this one's, so not "already subscribed".
        await recordTrial(trx, trialSubjects(who.userId, who.clientAccountId), plan.kind, id, now).catch((error: unknown) => {
          throw isUniqueViolation(error) ? conflict('subscriptions.trialTakenMeanwhile') : error;
        });
        await queueSubscriptionMail(trx, id, 'purchased', now);
        return { id, charge: null, token: null, repeat: false };
      }
      const token = tokenToCharge(payer, card, 'cardId');
      const fields = { period_number: 1, purpose: 'PERIOD' as const, attempt: 1, plan_id: Number(plan.id), amount_cents: plan.price_cents };
      const charge = (await insertChargeOnce(trx, newCharge({ id }, { ...fields, gateway: card.gateway, card_id: Number(card.id) }, now)))!;
      await queueAnswerDeadline(trx, id, Number(charge.id), now);
      return { id, charge, token, repeat: false };
    })
    .catch((error: unknown) => {
      // The family's slot is taken: a live subscription exists (or a parallel request just made one).
      if (isUniqueViolation(error)) throw conflict('subscriptions.alreadySubscribed');
      throw error;
    });
  if (claim.charge) {
    // Still with the bank: 201 PENDING, and the outcome is mailed once it comes (billing.apply.ts).
    const outcome = await chargeWhileTheCustomerWaits(db, payer.gateways, claim.charge, claim.token, now);
    // refund-due: declined first, then settled after all once the subscription had ended; the money goes back.
    if (outcome === 'failed' || outcome === 'refund-due') throw new DomainError('conflict', 'subscriptions.paymentDeclined');
  }
  const sub = await subscriptionById(db, claim.id, language);
  // A repeat of a request whose first month was declined meanwhile: answered as that request was.
  if (claim.repeat && sub.status === 'ENDED') throw new DomainError('conflict', 'subscriptions.paymentDeclined');
  return sub;
}

/**
 * Whether a subscribe request asks again for the client's live subscription `live` (the same plan, and
 * card when one is named) made within the resubmit window and not cancelled since: a repeat of the request
 * that made it.
 */
function repeatsSubscribing(live: SubscriptionRow, planId: number, input: { cardId?: number }, now: number): boolean {
  return (
    Number(live.plan_id) === planId &&
    (input.cardId === undefined || Number(live.card_id) === input.cardId) &&
    !live.cancel_at_period_end &&
    Number(live.created_at) > now - RESUBMIT_WINDOW_MS
  );
}

export async function changePlan(
  db: Kysely<Database>,
  payer: CardPayer,
  who: Subscriber,
  id: number,
  planId: number,
  language: Language,
  now: number,
) {
  const claim = await changePlanClaim(db, async (trx) => {
    // Locked, as a renewal's claim locks it: two changes at once (a double click, a retry after a
    // 503) take turns, and the second sees the first's charge.
    const sub = await lockOwnSubscription(trx, who.clientAccountId, id);
    if (!sub) throw notFound('subscriptions.notFound', { id });
    if (!['TRIAL', 'ACTIVE'].includes(sub.status)) throw conflict('subscriptions.notChangeable', { status: sub.status });
    // Still TRIAL or ACTIVE (as GET shows it, with cancelAtPeriodEnd): not a status of its own.
    if (sub.cancel_at_period_end) throw conflict('subscriptions.cancelledAtPeriodEnd');
    // A charge still waiting for the gateway (this change's, or a renewal's) is settled first: the plan it pays for is not known yet.
    const pending = await pendingChargeOf(trx, id);
    if (pending) throw chargePendingRefusal(pending, now);
    const current = (await findPlan(trx, Number(sub.plan_id)))!;
    if (planId === Number(current.id)) {
      // The current plan again: a downgrade waiting for the period's end is called off. Also when the
      // store no longer sells that plan: its subscribers keep it (their renewals charge it), and looked up
      // as a plan to sell it was a 422 "no such plan", leaving the downgrade they chose impossible to undo.
      await updateSubscription(trx, id, { next_plan_id: null, updated_at: now });
      return null;
    }
    const plan = await sellablePlan(trx, planId, sub.store_code);
    if (familyOf(plan.kind) !== familyOf(current.kind)) throw invalidField('planId', 'subscriptions.otherFamily');
    if (plan.price_cents <= current.price_cents) {
      await updateSubscription(trx, id, { next_plan_id: Number(plan.id), updated_at: now });
      return null;
    }
    let amount: number;
    if (sub.trial) {
      // The trial goes on as far as the new plan's own trial reaches from its start (trials.ts). Past
      // that, it ends once the new plan's first month is paid: this charge, of the trial's period.
      const trialEnd = await trialEndOnPlan(trx, sub, plan, now);
      if (trialEnd !== null) {
        await updateSubscription(trx, id, { plan_id: Number(plan.id), next_plan_id: null, period_end: trialEnd, updated_at: now });
        return null;
      }
      amount = plan.price_cents;
    } else {
      amount = proratedCents(plan.price_cents - current.price_cents, now, Number(sub.period_start), Number(sub.period_end));
      // The very end of a period costs nothing to upgrade: the better plan from now on.
      if (amount === 0) {
        await updateSubscription(trx, id, { plan_id: Number(plan.id), next_plan_id: null, updated_at: now });
        return null;
      }
    }
    const card = sub.card_id === null ? undefined : await ownCard(trx, who.clientAccountId, Number(sub.card_id));
    if (card?.state !== 'ACTIVE') throw invalidField('planId', 'subscriptions.cardNeeded');
    const token = tokenToCharge(payer, card, 'planId');
    const attempt = (await countCharges(trx, id, sub.period_number, 'UPGRADE')) + 1;
    const fields = {
      period_number: sub.period_number,
      purpose: 'UPGRADE' as const,
      attempt,
      plan_id: Number(plan.id),
      from_plan_id: Number(current.id),
      amount_cents: amount,
    };
    const charge = await insertChargeOnce(trx, newCharge({ id }, { ...fields, gateway: card.gateway, card_id: Number(card.id) }, now));
    if (!charge) throw conflict('subscriptions.chargePending');
    await queueAnswerDeadline(trx, id, Number(charge.id), now);
    return { charge, token };
  });
  if (claim) {
    // Still with the bank: the customer is told so (503), and mailed the outcome once it comes (billing.apply.ts).
    const outcome = await chargeWhileTheCustomerWaits(db, payer.gateways, claim.charge, claim.token, now);
    // refund-due: declined first, then settled after all once the subscription had ended; the money goes back.
    if (outcome === 'failed' || outcome === 'refund-due') throw new DomainError('conflict', 'subscriptions.paymentDeclined');
    if (outcome === 'pending') throw new DomainError('unavailable', 'subscriptions.paymentPending', {}, 60);
  }
  return subscriptionById(db, id, language);
}

/**
 * The plan change's transaction. Its one unique violation is a trial of the new plan's kind recorded by
 * another subscription of the user or account between this one's read and its insert (trials.ts): a
 * retry sees it and charges the first month instead.
 */
function changePlanClaim<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db
    .transaction()
    .execute(work)
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw conflict('subscriptions.trialTakenMeanwhile');
      throw error;
    });
}

/**
 * Runs a charge the customer waits for (the first month, an upgrade) and gives its outcome. Still with
 * the bank: the charge records that the customer is told so (markPendingTold), and the transaction that
 * finishes it mails them the outcome (billing.apply.ts). Decided (here, or by its callback before the
 * mark): the charge records that the answer tells it (markOutcomeTold), and nothing is mailed. A request
 * that dies before either is recorded told nothing: the job queued with the charge mails the outcome
 * (queueAnswerDeadline).
 */
async function chargeWhileTheCustomerWaits(
  db: Kysely<Database>,
  gateways: Gateways,
  charge: ChargeRow,
  token: string | null,
  now: number,
): Promise<ChargeOutcome> {
  const id = Number(charge.id);
  let outcome = await runCharge(db, gateways, charge, token, now);
  // An answer naming another amount or order (mismatch) proves nothing and leaves the charge pending, as
  // "still with the bank" does: its callback or the billing run's look-up decides it, and mails that.
  if (outcome === 'pending' || outcome === 'mismatch') {
    if (await markPendingTold(db, id, now)) return 'pending';
    outcome = await decidedOutcome(db, id);
  }
  await markOutcomeTold(db, id, now);
  return outcome;
}

/**
 * The 409 for a change while a charge of the subscription waits for its gateway. A charge in a
 * request's or a run's hands is a moment's wait (retry in a minute); one left past STALE_CHARGE_MS
 * waits for an answer that did not come, which the billing run asks for hourly, then daily, and an
 * operator may have to settle (billing.service.ts): the customer is told so, not to retry every minute.
 */
function chargePendingRefusal(charge: Pick<ChargeRow, 'updated_at'>, now: number): DomainError {
  if (Number(charge.updated_at) < now - STALE_CHARGE_MS)
    return new DomainError('conflict', 'subscriptions.chargeAwaitingGateway', {}, 3600);
  return new DomainError('conflict', 'subscriptions.chargePending', {}, 60);
}

/**
 * Cancels at the period's end (access until then); a subscription whose renewal failed ends at once.
 * Not while one of its charges waits for the gateway (a renewal's retry, say): that charge's outcome
 * moves the subscription (settled: the next period), and applied after the cancellation it made an
 * ended subscription ACTIVE again, without its family's slot, renewing every month.
 */
export async function cancelSubscription(db: Kysely<Database>, who: Subscriber, id: number, language: Language, now: number) {
  await db.transaction().execute(async (trx) => {
    // Locked, as a plan change and a renewal's claim lock it: of two cancellations at once (a double
    // click) the second sees the first's and changes nothing, so the cancellation is mailed once; a
    // charge claimed meanwhile is seen pending.
    const sub = await lockOwnSubscription(trx, who.clientAccountId, id);
    if (!sub) throw notFound('subscriptions.notFound', { id });
    // The same cancellation again of one whose renewal failed: the first ended it at once, and its answer
    // is this one's (it was a 409 "cannot be changed", as if the cancellation had failed).
    if (endedByCancelJustNow(sub, now)) return;
    if (!LIVE.includes(sub.status) || sub.status === 'PENDING') throw conflict('subscriptions.notChangeable', { status: sub.status });
    if (sub.cancel_at_period_end) return;
    const pending = await pendingChargeOf(trx, id);
    if (pending) throw chargePendingRefusal(pending, now);
    if (sub.status === 'FAILED') {
      await updateSubscription(trx, id, { status: 'ENDED', live_key: null, next_attempt_at: null, ended_at: now, updated_at: now });
    } else {
      await updateSubscription(trx, id, { cancel_at_period_end: true, next_plan_id: null, updated_at: now });
    }
    await queueSubscriptionMail(trx, id, 'cancelled', now);
  });
  return subscriptionById(db, id, language);
}

/**
 * Whether `sub` was ended within the resubmit window by a cancellation while its renewal failed: ENDED with
 * failed attempts, which only that cancellation leaves (a declined first month ends with none, a last
 * declined retry is LAPSED, and an erased person's subscriptions are asked for by no one).
 */
function endedByCancelJustNow(sub: SubscriptionRow, now: number): boolean {
  return sub.status === 'ENDED' && sub.failed_attempts > 0 && sub.ended_at !== null && Number(sub.ended_at) > now - RESUBMIT_WINDOW_MS;
}
