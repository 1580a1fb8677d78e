import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Logger } from '../../infra/logger.js';
import { subscriptionRenewalsCardUnopenedTotal } from '../../infra/metrics/process-metrics.js';
import {
  GatewayRefusedError,
  GatewayUnavailableError,
  refusesWhatWasAsked,
  type GatewayName,
  type Gateways,
  type PaymentStatus,
} from '../payments/index.js';
import { inTransaction } from '../../db/after-commit.js';
import { applyChargeOutcome, applyChargeStatus, type ChargeOutcome } from './billing.apply.js';
import type { CardTokens } from './card-tokens.js';
import { findCard, storedTokenToCharge } from './cards.repository.js';
import { DEFAULT_BILLING_CONCURRENCY } from './subscriptions.config.js';
import {
  chargeStateOf,
  claimCheck,
  countStuckCharges,
  insertChargeOnce,
  pendingChargeOf,
  pendingChargesToCheck,
  setChargeCard,
  type ChargeRow,
} from './charges.repository.js';
import { DAY_MS } from './periods.js';
import { refundCharges } from './refunds.js';
import { sealStoredTokens } from './stored-tokens.js';
import {
  findPlan,
  findSubscription,
  lockSubscription,
  subscriberOf,
  updateSubscription,
  dueSubscriptionIds,
} from './subscriptions.repository.js';

// Billing: every subscription whose period ended (or whose retry is due) is charged through its
// saved card with a merchant-initiated charge. A period is never charged twice:
// 1. the charge row (subscription, period, purpose, attempt) is inserted and COMMITTED before the
//    gateway is called; a second run (another worker, the same run again) finds it and skips;
// 2. the gateway sees the row's order reference and an idempotency key derived from the row;
// 3. the answer is applied by a conditional update of the row (billing.apply.ts);
// 4. a row left pending (the answer was lost, the process died) is reconciled after STALE_MS by
//    looking the payment up at the gateway (its reference, or its order reference), never by a
//    new charge. Where the gateway has no lookup (EveryPay), the very same request is sent again:
//    its nonce and order reference make the gateway refuse it if the first one arrived, and the
//    gateway's callback names that payment; if it never arrived, it is charged now, once. A charge
//    the gateway took and whose callback never comes stays pending: it is looked up hourly in its
//    first day, then daily, the least recently looked up first (so any number of them cannot keep a
//    later one from its turn), and counted in each run's report as `stuck` once a day old, for the
//    operator: `subscription charges --pending` lists them and `subscription settle` applies what the
//    merchant portal shows (subscriptions.cli.ts), as a gateway's answer is applied.
// 5. money a charge took for nothing (settled after it was recorded failed, once its subscription
//    no longer wanted it: billing.apply.ts) is refunded whole through its gateway by a job queued
//    with the mark (refunds.ts), and by each run while it is left, until the gateway says it is
//    refunded, or refuses the refund for good (refund_refused, left to the operator:
//    `subscription charges --refund-refused`, then `mark-refunded` or `retry-refund`).

/** A pending charge younger than this may still be in another run's hands. */
export const STALE_CHARGE_MS = 10 * 60_000;
/** A charge pending longer than this is stuck: the run's report counts it and the operator is warned. */
export const STUCK_CHARGE_MS = DAY_MS;
/**
 * A stuck charge is looked up again after this in its first day (each hourly run: a little under an
 * hour, so a run that starts a few minutes early still asks), and after RECHECK_LATER_MS from then on.
 */
const RECHECK_FIRST_DAY_MS = 50 * 60_000;
const RECHECK_LATER_MS = 23 * 3_600_000;
const BATCH = 500;

export interface BillingReport {
  charged: number;
  failed: number;
  pending: number;
  ended: number;
  skipped: number;
  reconciled: number;
  /**
   * Charges settled for nothing (billing.apply.ts) refunded by this run, those whose refund the gateway refused
   * for good (refund_refused: see `subscription charges --refund-refused`), and those left for the next run.
   */
  refunded: number;
  refundsRefused: number;
  refundsLeft: number;
  /** Charges pending longer than a day (STUCK_CHARGE_MS): the gateway cannot settle them; see `subscription charges --pending`. */
  stuck: number;
  /** Renewals not charged because their card's token opens with no configured key: left due for a run with the right key. */
  cardsUnopened: number;
}

/** The charge's order reference at the gateway: one per row, so a retry is another payment there. */
const referenceOf = (subscriptionId: number, period: number, purpose: string, attempt: number) =>
  `SUB${subscriptionId}-${period}${purpose === 'UPGRADE' ? 'U' : 'P'}${attempt}`;

export function newCharge(
  sub: { id: number },
  fields: Pick<ChargeRow, 'period_number' | 'purpose' | 'attempt' | 'plan_id' | 'amount_cents' | 'gateway'> &
    Partial<Pick<ChargeRow, 'from_plan_id' | 'card_id'>>,
  now: number,
): Omit<ChargeRow, 'id'> {
  return {
    subscription_id: sub.id,
    from_plan_id: null,
    card_id: null,
    ...fields,
    order_reference: referenceOf(sub.id, fields.period_number, fields.purpose, fields.attempt),
    idempotency_key: randomBytes(16).toString('hex'),
    reference: null,
    state: 'pending',
    pending_told_at: null,
    outcome_told_at: null,
    checked_at: null,
    mismatch: null,
    mismatch_at: null,
    refund_refusal: null,
    refund_refused_at: null,
    refund_tried_at: null,
    refunded_cents: 0,
    settled_at: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Calls the gateway for a committed pending charge and applies its answer. A refusal of the
 * request itself (an unknown token) took no money: the charge failed. An unreachable gateway or a
 * lost answer leaves the charge pending for reconcile().
 */
export async function runCharge(db: Kysely<Database>, gateways: Gateways, charge: ChargeRow, token: string | null, now: number) {
  // No saved card to charge (a renewal's card went, and its charge names the gateway 'none'): failed now.
  // Asked after the gateway, this left the charge pending for the next run's look-up, an hour on, while
  // the subscription waited past its period and a cancel was told a payment was pending.
  if (token === null) return inTransaction(db, (trx) => applyChargeOutcome(trx, charge, 'failed', null, now));
  const gateway = gateways[charge.gateway as GatewayName];
  if (!gateway) return 'pending' as const;
  const sub = (await findSubscription(db, Number(charge.subscription_id)))!;
  const subscriber = await subscriberOf(db, Number(sub.user_id));
  let status: PaymentStatus;
  try {
    status = await gateway.chargeSavedCard({
      token,
      orderReference: charge.order_reference,
      amountCents: charge.amount_cents,
      currency: 'EUR',
      customerEmail: subscriber?.email ?? '',
      idempotencyKey: charge.idempotency_key,
    });
  } catch (error) {
    // A refusal of the shop's own credentials (EveryPay's 401/403) is the operator's to fix, not the
    // customer's card: the renewal waits for the next run, as when the gateway is down, unfailed and unmailed.
    if (refusesWhatWasAsked(error)) return inTransaction(db, (trx) => applyChargeOutcome(trx, charge, 'failed', null, now));
    if (error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError) return 'pending' as const;
    throw error;
  }
  const applied = await inTransaction(db, (trx) => applyChargeStatus(trx, charge, status, now));
  if (applied !== 'applied-already' && applied !== 'pending') return applied;
  // The gateway's callback for this very payment may land first and finish the row: the charge is still this
  // run's, with the outcome the callback applied (a billing report counted it as skipped before). That is also
  // so when the gateway answered while the bank was still deciding and its callback brought the decision
  // before this answer was applied: the caller is told the decision, not "pending".
  return decidedOutcome(db, Number(charge.id));
}

/** A charge's outcome as committed now: pending, or what was applied to it (a settle to go back, refunded or not since, is refund-due). */
export async function decidedOutcome(db: Kysely<Database>, chargeId: number) {
  const state = await chargeStateOf(db, chargeId);
  return state === 'refund_due' || state === 'refunded' || state === 'refund_refused' ? ('refund-due' as const) : state;
}

/** Claims the due charge of one subscription (committed); null when it is not due or another run has it. */
async function claimRenewal(db: Kysely<Database>, cardTokens: CardTokens, subscriptionId: number, now: number) {
  return db.transaction().execute(async (trx) => {
    // Locked: an erasure of the subscriber in flight either ended it first (not due) or waits and
    // then finds this claim's pending charge (and refuses).
    const sub = await lockSubscription(trx, subscriptionId);
    if (!sub) return null;
    const due =
      (['TRIAL', 'ACTIVE'].includes(sub.status) && Number(sub.period_end) <= now) ||
      (sub.status === 'FAILED' && sub.next_attempt_at !== null && Number(sub.next_attempt_at) <= now);
    if (!due) return null;
    if (sub.cancel_at_period_end) {
      // Cancelled: access ran until the period's end, and nothing is charged.
      await updateSubscription(trx, subscriptionId, { status: 'ENDED', live_key: null, ended_at: now, updated_at: now });
      return 'ended' as const;
    }
    if (await pendingChargeOf(trx, subscriptionId)) return null;
    const planId = Number(sub.next_plan_id ?? sub.plan_id);
    const plan = (await findPlan(trx, planId))!;
    const card = sub.card_id === null ? undefined : await findCard(trx, Number(sub.card_id));
    const stored = storedTokenToCharge(card);
    const token = stored === null ? null : cardTokens.openQuietly(stored);
    // A token no configured key opens (a key lost or mistyped) is the operator's fault, not the customer's
    // card: no charge is claimed, the subscription neither fails nor is mailed, and a run with the right
    // key charges it. The run warns once with the count. Failed, every renewal failed and mailed its customer.
    if (stored !== null && token === null) return 'card-unopened' as const;
    const charge = await insertChargeOnce(
      trx,
      newCharge(
        { id: subscriptionId },
        {
          period_number: sub.period_number + 1,
          purpose: 'PERIOD',
          attempt: sub.failed_attempts + 1,
          plan_id: planId,
          amount_cents: plan.price_cents,
          gateway: card?.gateway ?? 'none',
          card_id: card ? Number(card.id) : null,
        },
        now,
      ),
    );
    // No active card with a token: the renewal fails without a gateway call (runCharge).
    return charge ? { charge, token } : null;
  });
}

/**
 * Looks up to `batch` stale pending charges up at their gateway, the least recently looked up first, and
 * applies what it says. Each is recorded looked up before its gateway is asked (claimCheck), whatever the
 * answer, so one the gateway cannot settle waits RECHECK_FIRST_DAY_MS (then RECHECK_LATER_MS) for its next turn.
 */
export async function reconcile(
  db: Kysely<Database>,
  gateways: Gateways,
  cardTokens: CardTokens,
  now: number,
  batch = BATCH,
): Promise<number> {
  let reconciled = 0;
  const schedule = {
    staleBefore: now - STALE_CHARGE_MS,
    newSince: now - DAY_MS,
    newCheckedBefore: now - RECHECK_FIRST_DAY_MS,
    oldCheckedBefore: now - RECHECK_LATER_MS,
  };
  for (const charge of await pendingChargesToCheck(db, schedule, batch)) {
    if (!(await claimCheck(db, charge, now))) continue;
    const gateway = gateways[charge.gateway as GatewayName];
    if (charge.gateway === 'none') {
      await inTransaction(db, (trx) => applyChargeOutcome(trx, charge, 'failed', null, now));
      reconciled += 1;
      continue;
    }
    if (!gateway) continue;
    let status: PaymentStatus | null;
    try {
      status = charge.reference ? await gateway.fetchStatus(charge.reference) : await gateway.findPayment(charge.order_reference);
    } catch (error) {
      if (error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError) continue;
      throw error;
    }
    if (status === null) {
      // The gateway cannot look it up (EveryPay): the same request again, with the same nonce and
      // order reference. A gateway that had it refuses the repeat (the callback will name the
      // payment); one that never got it (the run died before the request left) charges it now, once.
      const outcome = await resendCharge(db, gateways, cardTokens, charge, now);
      if (outcome !== 'pending') reconciled += 1;
      continue;
    }
    const found = status;
    const outcome = await inTransaction(db, (trx) => applyChargeStatus(trx, charge, found, now));
    if (outcome !== 'pending' && outcome !== 'mismatch') reconciled += 1;
  }
  return reconciled;
}

async function resendCharge(db: Kysely<Database>, gateways: Gateways, cardTokens: CardTokens, charge: ChargeRow, now: number) {
  const sub = await findSubscription(db, Number(charge.subscription_id));
  const card = sub?.card_id == null ? undefined : await findCard(db, Number(sub.card_id));
  const stored = storedTokenToCharge(card);
  const token = stored === null ? null : cardTokens.openQuietly(stored);
  if (token === null || card!.gateway !== charge.gateway) return 'pending' as const;
  const gateway = gateways[charge.gateway as GatewayName]!;
  const subscriber = await subscriberOf(db, Number(sub!.user_id));
  let status: PaymentStatus;
  try {
    status = await gateway.chargeSavedCard({
      token,
      orderReference: charge.order_reference,
      amountCents: charge.amount_cents,
      currency: 'EUR',
      customerEmail: subscriber?.email ?? '',
      idempotencyKey: charge.idempotency_key,
    });
  } catch (error) {
    // Refused (the nonce or order reference was used: the first request arrived) or unreachable:
    // the charge stays pending until the gateway names the payment.
    if (error instanceof GatewayRefusedError || error instanceof GatewayUnavailableError) return 'pending' as const;
    throw error;
  }
  // Answered, so this request made the payment (the first never arrived): with the card charged now, which a
  // chargeback of it retires (billing.apply.ts), whatever card the charge was claimed with.
  return inTransaction(db, async (trx) => {
    await setChargeCard(trx, Number(charge.id), Number(card!.id), now);
    return applyChargeStatus(trx, charge, status, now);
  });
}

/** How many charges have been pending longer than a day (STUCK_CHARGE_MS): the run's report, /metrics. */
export function stuckChargeCount(db: Kysely<Database>, now: number): Promise<number> {
  return countStuckCharges(db, now - STUCK_CHARGE_MS);
}

export interface BillingOptions {
  /** Opens the saved cards' tokens to charge them; the run first seals what is not sealed under its first key. */
  cardTokens: CardTokens;
  /** Subscriptions charged at once; each one's claim, gateway call and outcome stay in order. */
  concurrency?: number;
  /** Where a refund left for the next run, one the gateway refused for good, and charges stuck pending, are told. */
  log?: Pick<Logger, 'warn' | 'error'>;
  /** Stale pending charges looked up per run (500). */
  reconcileBatch?: number;
  /** Charges to refund (refund_due) tried per run (500). */
  refundBatch?: number;
}

/**
 * One billing run: reconcile what earlier runs left, then charge everything due, `concurrency`
 * subscriptions at a time. Running charges side by side changes none of the guarantees above: each
 * subscription is claimed by its own committed charge row before its gateway call, and a batch's
 * ids are distinct, so the pool only overlaps the waits for the gateway.
 */
export async function billDue(db: Kysely<Database>, gateways: Gateways, now: number, options: BillingOptions): Promise<BillingReport> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_BILLING_CONCURRENCY));
  const report: BillingReport = {
    charged: 0,
    failed: 0,
    pending: 0,
    ended: 0,
    skipped: 0,
    reconciled: 0,
    refunded: 0,
    refundsRefused: 0,
    refundsLeft: 0,
    stuck: 0,
    cardsUnopened: 0,
  };
  await sealStoredTokens(db, options.cardTokens);
  report.reconciled = await reconcile(db, gateways, options.cardTokens, now, options.reconcileBatch);
  const refunds = await refundCharges(db, gateways, now, options.log, options.refundBatch);
  report.refunded = refunds.refunded;
  report.refundsRefused = refunds.refused;
  report.refundsLeft = refunds.left;
  for (let afterId = 0; ;) {
    const ids = await dueSubscriptionIds(db, now, afterId, BATCH);
    if (ids.length === 0) break;
    afterId = ids.at(-1)!;
    await inPool(ids, concurrency, async (id) => {
      const claim = await claimRenewal(db, options.cardTokens, id, now);
      if (claim === null) report.skipped += 1;
      else if (claim === 'ended') report.ended += 1;
      else if (claim === 'card-unopened') {
        // Counted as found: a run that fails later still tells how many renewals the key held back.
        report.cardsUnopened += 1;
        subscriptionRenewalsCardUnopenedTotal.inc();
      } else count(report, await runCharge(db, gateways, claim.charge, claim.token, now));
    });
  }
  if (report.cardsUnopened > 0)
    options.log?.warn(
      { cardsUnopened: report.cardsUnopened },
      "subscription billing: renewals not charged, their saved cards' tokens open with no card token key (CARD_TOKEN_KEYS or the key file); a run with the right key charges them",
    );
  report.stuck = await stuckChargeCount(db, now);
  if (report.stuck > 0)
    options.log?.warn(
      { stuck: report.stuck },
      'subscription billing: charges pending longer than a day; the gateway cannot settle them (storefront subscription charges --pending, then settle)',
    );
  return report;
}

/**
 * Runs `work` on every item, at most `size` at once. The first failure stops new work; the items
 * already started finish (their charges are committed or pending, for reconcile) before it is thrown.
 */
async function inPool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, lane));
  if (failure) throw failure.error;
}

function count(report: BillingReport, outcome: ChargeOutcome): void {
  if (outcome === 'settled') report.charged += 1;
  else if (outcome === 'failed') report.failed += 1;
  else if (outcome === 'pending') report.pending += 1;
  else report.skipped += 1;
}
