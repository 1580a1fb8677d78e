// The SQL of subscription charges: one row per subscription, period, purpose and attempt,
// inserted (and committed) before the gateway is called.
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { ChargeRefundKind, ChargeState, SubscriptionChargeTable } from './subscriptions.tables.js';

export type ChargeRow = Selectable<SubscriptionChargeTable>;

/** Inserts the charge unless its (subscription, period, purpose, attempt) exists; the new row, or undefined. */
export async function insertChargeOnce(db: Db, row: Omit<ChargeRow, 'id'>): Promise<ChargeRow | undefined> {
  const inserted = await db
    .insertInto('subscription_charge')
    .values(row)
    // Any unique key: the order reference is made of the same four fields, and two runs inserting
    // the same charge at once on PostgreSQL can meet on its index first (a target of the four
    // columns alone turned that race into an error).
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted ? { ...row, id: Number(inserted.id) } : undefined;
}

export function pendingChargeOf(db: Db, subscriptionId: number): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
}

export async function countCharges(db: Db, subscriptionId: number, periodNumber: number, purpose: ChargeRow['purpose']): Promise<number> {
  const row = await db
    .selectFrom('subscription_charge')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('subscription_id', '=', subscriptionId)
    .where('period_number', '=', periodNumber)
    .where('purpose', '=', purpose)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * How many renewal attempts of the subscription's period before `attempt` were anything but a payment refunded whole
 * before it settled (failed with refunded_cents at its amount, every refund of it recorded by the time it failed: given
 * back in the portal, charged back): a decline, the one the billingFailed mail is sent for (billing.apply.ts). A charge
 * declined (and mailed billingFailed) whose payment the bank settled unheard and that was refunded or charged back
 * later is failed and refunded whole too, but its refunds came after it failed (its updated_at, which nothing moves
 * while it stays failed): counted so, the next decline of the period mailed billingFailed a second time.
 */
export async function attemptsNotRefundedBefore(db: Db, subscriptionId: number, periodNumber: number, attempt: number): Promise<number> {
  const row = await db
    .selectFrom('subscription_charge')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('subscription_id', '=', subscriptionId)
    .where('period_number', '=', periodNumber)
    .where('purpose', '=', 'PERIOD')
    .where('attempt', '<', attempt)
    .where((eb) =>
      eb.not(
        eb.and([
          eb('state', '=', 'failed'),
          eb('refunded_cents', '>=', eb.ref('amount_cents')),
          eb.not(
            eb.exists(
              eb
                .selectFrom('subscription_charge_refund')
                .select('subscription_charge_refund.id')
                .whereRef('subscription_charge_refund.charge_id', '=', 'subscription_charge.id')
                .whereRef('subscription_charge_refund.refunded_at', '>', 'subscription_charge.updated_at'),
            ),
          ),
        ]),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findCharge(db: Db, id: number): Promise<ChargeRow | undefined> {
  return db.selectFrom('subscription_charge').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A charge's state as committed now (pending, settled or failed). */
export async function chargeStateOf(db: Db, id: number): Promise<ChargeState> {
  const row = await db.selectFrom('subscription_charge').select('state').where('id', '=', id).executeTakeFirstOrThrow();
  return row.state;
}

/** When pending charges are due to be looked up at their gateway again (billing.service.ts decides). */
export interface CheckSchedule {
  /** Untouched since before this: no run has the charge in hand any more. */
  staleBefore: number;
  /** Charges created since this are new: looked up again once their last look-up is before `newCheckedBefore`. */
  newSince: number;
  newCheckedBefore: number;
  /** Older ones once their last look-up is before this. */
  oldCheckedBefore: number;
}

/**
 * Stale pending charges due for a look-up (a run that died, an answer or callback that never came), the
 * least recently looked up first (never: first of all), then oldest: a charge the gateway cannot settle
 * waits for its next look-up behind the others, so any number of them cannot keep a later one from its turn.
 */
export function pendingChargesToCheck(db: Db, schedule: CheckSchedule, limit: number): Promise<ChargeRow[]> {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('state', '=', 'pending')
    .where('updated_at', '<', schedule.staleBefore)
    .where((eb) =>
      eb.or([
        eb('checked_at', 'is', null),
        eb.and([eb('created_at', '>=', schedule.newSince), eb('checked_at', '<', schedule.newCheckedBefore)]),
        eb('checked_at', '<', schedule.oldCheckedBefore),
      ]),
    )
    .orderBy((eb) => eb.fn.coalesce('checked_at', eb.lit(0)))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Records that this run looks the pending charge up now, if no other run did since it was read: true
 * when it is this run's to look up (two runs at once, the worker's and `subscription bill`, ask once).
 * Recorded before the gateway is asked, so a charge whose look-up fails waits for its turn as well.
 */
export async function claimCheck(db: Db, charge: Pick<ChargeRow, 'id' | 'checked_at'>, now: number): Promise<boolean> {
  const result = await db
    .updateTable('subscription_charge')
    .set({ checked_at: now })
    .where('id', '=', charge.id)
    .where('state', '=', 'pending')
    .where('checked_at', charge.checked_at === null ? 'is' : '=', charge.checked_at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** How many charges have been pending since before `createdBefore`. */
export async function countStuckCharges(db: Db, createdBefore: number): Promise<number> {
  const row = await db
    .selectFrom('subscription_charge')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('state', '=', 'pending')
    .where('created_at', '<', createdBefore)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of the charges pending and untouched since before `staleBefore`, oldest first, after `afterId`. */
export function stalePendingChargesPage(db: Db, staleBefore: number, afterId: number, limit: number): Promise<ChargeRow[]> {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('state', '=', 'pending')
    .where('updated_at', '<', staleBefore)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * What its gateway held under a charge's payment or order reference that does not pay it (paysCharge): kept
 * on the charge for the operator, as the gateway named it.
 */
export interface MismatchedPayment {
  reference: string;
  orderReference: string;
  state: string;
  amountCents: number;
  currency: string | null;
  /** False: held on another of the merchant's processing accounts. */
  ownAccount: boolean;
}

/**
 * Records on the charge the payment its gateway named that does not pay it, replacing one recorded before.
 * Not a change of the charge (its state and updated_at stay): it stays pending, and a billing run's hold on it
 * is judged as before.
 */
export async function recordMismatch(db: Db, id: number, payment: MismatchedPayment, now: number): Promise<void> {
  await db
    .updateTable('subscription_charge')
    .set({ mismatch: JSON.stringify(payment), mismatch_at: now })
    .where('id', '=', id)
    .execute();
}

/** One page of the pending charges with a mismatch recorded, oldest first, after `afterId`. */
export function mismatchedPendingChargesPage(db: Db, afterId: number, limit: number): Promise<ChargeRow[]> {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('state', '=', 'pending')
    .where('mismatch_at', 'is not', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export function findChargeByOrderReference(db: Db, orderReference: string): Promise<ChargeRow | undefined> {
  return db.selectFrom('subscription_charge').selectAll().where('order_reference', '=', orderReference).executeTakeFirst();
}

export function findChargeByGatewayPayment(db: Db, gateway: string, reference: string, orderReference: string) {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('gateway', '=', gateway)
    .where((eb) => eb.or([eb('reference', '=', reference), eb('order_reference', '=', orderReference)]))
    .executeTakeFirst();
}

export async function setChargeReference(db: Db, id: number, reference: string, now: number): Promise<void> {
  await db
    .updateTable('subscription_charge')
    .set({ reference, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/**
 * Records what the gateway reports refunded of the charge's payment, if more than recorded: refunds only add up,
 * so a callback repeated, or late with an older and smaller sum, changes nothing; true when it recorded more. What
 * is more is a refund of its own (`kind`, made `now`), which `subscription stats` takes off the month it was made in;
 * refunded_cents stays the sum of those rows, as both are written here, the charge's row locked first (on SQLite the
 * write transaction is serial). Not a move of the charge: its state and updated_at stay. Call it in a transaction.
 */
export async function recordRefunded(db: Db, id: number, cents: number, kind: ChargeRefundKind, now: number): Promise<boolean> {
  const charge = await lockedOnPostgres(
    db,
    db.selectFrom('subscription_charge').select('refunded_cents').where('id', '=', id),
  ).executeTakeFirst();
  if (!charge || charge.refunded_cents >= cents) return false;
  await db
    .insertInto('subscription_charge_refund')
    .values({ charge_id: id, kind, amount_cents: cents - charge.refunded_cents, refunded_at: now })
    .execute();
  await db.updateTable('subscription_charge').set({ refunded_cents: cents }).where('id', '=', id).execute();
  return true;
}

/**
 * Records the rest of the charge's payment gone back (a refund that leaves nothing of it: markRefunded), as
 * recordRefunded does; nothing when all of it is recorded already (the gateway's callback came first).
 */
export async function recordRefundedWhole(db: Db, id: number, kind: ChargeRefundKind, now: number): Promise<void> {
  const charge = await db.selectFrom('subscription_charge').select('amount_cents').where('id', '=', id).executeTakeFirstOrThrow();
  await recordRefunded(db, id, charge.amount_cents, kind, now);
}

/** The card a pending charge is made with, when sent again with the subscription's card of now (billing.service.ts resendCharge). */
export async function setChargeCard(db: Db, id: number, cardId: number, now: number): Promise<void> {
  await db
    .updateTable('subscription_charge')
    .set({ card_id: cardId, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/**
 * Finishes a pending charge; null when it was finished already (another run, a callback). `toldPending`:
 * its customer was told it is being processed (markPendingTold), read from the row this update
 * finished, so a mark committed while this transaction waited for the row is seen.
 */
export async function finishCharge(
  db: Db,
  id: number,
  state: Exclude<ChargeState, 'pending'>,
  reference: string | null,
  now: number,
): Promise<{ toldPending: boolean } | null> {
  const row = await db
    .updateTable('subscription_charge')
    .set({ state, updated_at: now, ...settledAtOf(state, now), ...(reference === null ? {} : { reference }) })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .returning('pending_told_at')
    .executeTakeFirst();
  return row ? { toldPending: row.pending_told_at !== null } : null;
}

/**
 * Records that the charge's customer is told it is being processed, if it still is (pending); false
 * when it was finished meanwhile (a callback came first): its outcome is what the customer is told then.
 */
export async function markPendingTold(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('subscription_charge')
    .set({ pending_told_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Records that the charge's customer was told its outcome (their request's answer, 201, 200 or 409; a late
 * settle's mail), so the request's deadline mails nothing about it; nothing when that deadline took over
 * already (takeOverTelling found them told nothing).
 */
export async function markOutcomeTold(db: Db, id: number, now: number): Promise<void> {
  await db
    .updateTable('subscription_charge')
    .set({ outcome_told_at: now })
    .where('id', '=', id)
    .where('pending_told_at', 'is', null)
    .where('outcome_told_at', 'is', null)
    .execute();
}

/**
 * Takes over telling a charge's outcome from a request that told the customer nothing (neither pending
 * nor the outcome): marks it as if told pending, so the transaction that finishes it mails the outcome.
 * The charge as it is then (a finished one was not mailed, and is the caller's to mail), or undefined
 * when its request told the customer something.
 */
export function takeOverTelling(db: Db, id: number, now: number): Promise<ChargeRow | undefined> {
  return db
    .updateTable('subscription_charge')
    .set({ pending_told_at: now })
    .where('id', '=', id)
    .where('pending_told_at', 'is', null)
    .where('outcome_told_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

type FinishedState = Exclude<ChargeState, 'pending'>;

/**
 * settled_at as a move to `to` sets it: now when the charge settles (finished settled, or a late settle that pays);
 * none when its money is to go back (refund_due: from failed it had none, and from settled it settled in the same
 * transaction, taken for nothing: billing.apply.ts refundDue); kept otherwise (refunded or charged back later, the
 * month it settled in keeps it).
 */
function settledAtOf(to: FinishedState, now: number): { settled_at?: number | null } {
  if (to === 'settled') return { settled_at: now };
  return to === 'refund_due' ? { settled_at: null } : {};
}

/** Moves a charge from one finished state (or any of several) to another; false when it is in none of `from` (applied already). */
export async function moveCharge(
  db: Db,
  id: number,
  from: FinishedState | readonly FinishedState[],
  to: FinishedState,
  reference: string | null,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('subscription_charge')
    .set({ state: to, updated_at: now, ...settledAtOf(to, now), ...(reference === null ? {} : { reference }) })
    .where('id', '=', id)
    .where('state', 'in', typeof from === 'string' ? [from] : from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Records the gateway's refusal of a refund_due charge's refund, moving it to refund_refused; false when it is
 * refund_due no more (another refunder moved it first).
 */
export async function markChargeRefundRefused(db: Db, id: number, refusal: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('subscription_charge')
    .set({ state: 'refund_refused', refund_refusal: refusal, refund_refused_at: now, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'refund_due')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Charges settled for nothing and not refunded yet, the least recently tried first (never: first of all),
 * then oldest; not those whose refund the gateway refused (refund_refused). A charge the gateway cannot
 * refund now waits behind the others for its next try, so any number of them cannot keep a later one from its turn.
 */
export function chargesToRefund(db: Db, limit: number): Promise<ChargeRow[]> {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('state', '=', 'refund_due')
    .orderBy((eb) => eb.fn.coalesce('refund_tried_at', eb.lit(0)))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Records that this run tries the charge's refund now, if it is still refund_due and no other run took it
 * since it was read: true when it is this run's to try (two runs at once, the worker's and `subscription
 * bill`, send it once). Recorded before the gateway is asked, so a refund that fails waits for its turn as well.
 */
export async function claimRefundTry(db: Db, charge: Pick<ChargeRow, 'id' | 'refund_tried_at'>, now: number): Promise<boolean> {
  const result = await db
    .updateTable('subscription_charge')
    .set({ refund_tried_at: now })
    .where('id', '=', charge.id)
    .where('state', '=', 'refund_due')
    .where('refund_tried_at', charge.refund_tried_at === null ? 'is' : '=', charge.refund_tried_at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** One page of the refund_refused charges, oldest first, after `afterId`. */
export function refundRefusedChargesPage(db: Db, afterId: number, limit: number): Promise<ChargeRow[]> {
  return db
    .selectFrom('subscription_charge')
    .selectAll()
    .where('state', '=', 'refund_refused')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}
