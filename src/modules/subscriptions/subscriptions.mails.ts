import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { lastLocalDay, localTime } from '../../infra/shop-time.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { findCharge, takeOverTelling, type ChargeRow } from './charges.repository.js';
import { nextChargeAt } from './periods.js';
import { titleOf } from './plans.js';
import { cardExpired, findCard, type CardRow } from './cards.repository.js';
import { findPlan, findSubscription, subscriberOf, type SubscriptionRow } from './subscriptions.repository.js';
import { escapeHtml } from '../../infra/html.js';

// The subscription mails: purchased, cancelled, billing failed (its first decline), lapsed (its last retry
// declined too: access has ended); and about a charge: a first month
// whose customer was told its payment was being processed declined, so the subscription did not
// start (billing.apply.ts; settled, it is the purchased mail), an upgrade
// whose declined charge the bank settled after all is active (billing.apply.ts), an upgrade whose
// customer was told its payment was being processed is active, or declined and the plan unchanged
// (billing.apply.ts), a charge taken for nothing was refunded (refunds.ts; an upgrade's names it; one an
// operator refunded by hand, perhaps by bank transfer, names no card: refused-refunds.service.ts).
// Queued in the outbox by the transaction that made the change, so each goes out once; rendered
// when sent, in the subscriber's language, from the subscription as it is then, and a charge's mail
// from its charge: the plan it paid for and its amount, whatever plan the subscription is on by then
// (which a declined upgrade's mail names as the plan kept). A charge whose payment was refunded before it
// settled (given back in the gateway's portal, a chargeback) is told as refunded, never as declined: the
// card was charged and the money came back (startRefunded, renewalRefunded; an upgrade's, upgradeRefunded).
// A payment the customer's bank took back on their dispute (a chargeback) is no refund of the shop's: a charge the
// shop owed back so returned is mailed `chargedBack`, which says so and that the shop neither refunds it nor charges
// it again (mailed as refunded, it read as the shop's refund). A renewal not yet settled so returned is mailed
// `renewalChargedBack`: the same, and what its retry does, as the subscription is when the mail is sent (the other
// saved card it renews with now, valid for the retry, and the retry's day; or a new card to save before that day).
// It said "nor charge it again" while the retry charged the other saved card.
// A charge whose request may die before it
// answers has a job of its own due once it must have answered (queueAnswerDeadline), which mails the
// outcome the request never told.

export const SUBSCRIPTION_MAIL_JOB = 'subscription.mail';
const MAIL_ATTEMPTS = 8;

export type SubscriptionMailKind = 'purchased' | 'cancelled' | 'billingFailed' | 'lapsed' | 'cardRetired' | ChargeMailKind;
/** The mails about one charge, which the job names. */
type ChargeMailKind =
  | 'startDeclined'
  | 'startRefunded'
  | 'renewalRefunded'
  | 'upgradeApplied'
  | 'upgradeConfirmed'
  | 'upgradeDeclined'
  | 'upgradeRefunded'
  | 'paymentRefunded'
  | 'upgradeRefundedByHand'
  | 'paymentRefundedByHand'
  | 'chargedBack'
  | 'renewalChargedBack';
const CHARGE_MAILS: readonly string[] = [
  'startDeclined',
  'startRefunded',
  'renewalRefunded',
  'upgradeApplied',
  'upgradeConfirmed',
  'upgradeDeclined',
  'upgradeRefunded',
  'paymentRefunded',
  'upgradeRefundedByHand',
  'paymentRefundedByHand',
  'chargedBack',
  'renewalChargedBack',
] satisfies ChargeMailKind[];

/** The deadline of a charge's request (queueAnswerDeadline). */
export const SUBSCRIPTION_ANSWER_DEADLINE_JOB = 'subscription.answer-deadline';
/** How long a request may take to answer its charge: the gateway's longest timeout is two minutes. */
export const ANSWER_DEADLINE_MS = 5 * 60_000;

/**
 * Queued with a charge its customer waits for (a first month, an upgrade), in the transaction that claims
 * it, and due once the request must have answered. A request that died after the gateway took the charge
 * (or before it called the gateway) told the customer nothing: then the outcome is mailed, by this job
 * when the charge is finished, else by the transaction that finishes it (takeOverTelling). A request
 * that answered (pending, or the outcome) leaves the job nothing to do.
 */
export async function queueAnswerDeadline(trx: Db, subscriptionId: number, chargeId: number, now: number): Promise<void> {
  const payload = { subscriptionId, chargeId };
  await enqueueJob(
    trx,
    { type: SUBSCRIPTION_ANSWER_DEADLINE_JOB, payload, runAt: now + ANSWER_DEADLINE_MS },
    { maxAttempts: MAIL_ATTEMPTS, now },
  );
}

/** What a finished charge nobody told its customer about is mailed: as its finisher mails a charge told pending (billing.apply.ts). */
function untoldOutcomeMail(charge: ChargeRow): ChargeMailKind | null {
  if (charge.state === 'pending') return null; // the transaction that finishes it mails it now
  // Failed because its payment was refunded whole before it settled (in the gateway's portal, a chargeback), as
  // its finisher tells it (billing.apply.ts failedBy): the card was charged and paid back, not declined.
  const refunded = charge.state === 'failed' && charge.refunded_cents >= charge.amount_cents;
  if (charge.purpose === 'UPGRADE') {
    // Settled is applied (else it is refund_due); money to go back is mailed with its refund (refunds.ts).
    if (charge.state === 'failed') return refunded ? 'upgradeRefunded' : 'upgradeDeclined';
    return charge.state === 'settled' ? 'upgradeConfirmed' : null;
  }
  // A first month settled mailed its start with it (startPaidPeriod); declined (then maybe settled late, and refunded), it did not start.
  if (charge.state === 'settled') return null;
  return refunded ? 'startRefunded' : 'startDeclined';
}

async function mailUntoldOutcome(db: Kysely<Database>, chargeId: number, now: number): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const charge = await takeOverTelling(trx, chargeId, now);
    const kind = charge ? untoldOutcomeMail(charge) : null;
    if (!charge || !kind) return 'skipped';
    await queueSubscriptionMail(trx, Number(charge.subscription_id), kind, now, chargeId);
    return 'queued';
  });
}

export async function queueSubscriptionMail(
  trx: Db,
  subscriptionId: number,
  kind: Exclude<SubscriptionMailKind, ChargeMailKind | 'cardRetired'>,
  now: number,
): Promise<void>;
export async function queueSubscriptionMail(
  trx: Db,
  subscriptionId: number,
  kind: ChargeMailKind,
  now: number,
  chargeId: number,
): Promise<void>;
export async function queueSubscriptionMail(trx: Db, subscriptionId: number, kind: SubscriptionMailKind, now: number, chargeId?: number) {
  const payload = chargeId === undefined ? { subscriptionId, kind } : { subscriptionId, kind, chargeId };
  await enqueueJob(trx, { type: SUBSCRIPTION_MAIL_JOB, payload }, { maxAttempts: MAIL_ATTEMPTS, now });
}

/**
 * Queued by the chargeback that retired the card a subscription renewed with (billing.apply.ts), in its transaction:
 * the card's last four digits travel with it, as the card's row is gone. Rendered when sent from the subscription as
 * it is then: renewed with another saved card, or none (a date to save one by; a renewal due, FAILED); nothing when it
 * renews no more (cancelled, ended).
 */
export async function queueCardRetiredMail(trx: Db, subscriptionId: number, lastFour: string, now: number): Promise<void> {
  const payload = { subscriptionId, kind: 'cardRetired', lastFour };
  await enqueueJob(trx, { type: SUBSCRIPTION_MAIL_JOB, payload }, { maxAttempts: MAIL_ATTEMPTS, now });
}

/**
 * The body of a card-retired mail for the subscription as it is now (`cardNow`: the card it renews with); null when it
 * renews no more. A card that has expired by its renewal (the period's end; retrying, now) is none: a retired card's
 * subscriptions move to the customer's other saved card, also one expired and not pruned yet, whose renewal is
 * declined, and told it renews with that card, the customer saved no new one.
 */
function cardRetiredBody(sub: SubscriptionRow, cardNow: CardRow | undefined, now: number): MessageKey | null {
  if (!['TRIAL', 'ACTIVE', 'FAILED'].includes(sub.status) || sub.cancel_at_period_end) return null;
  if (cardNow && !cardExpired(cardNow, nextChargeAt(sub, now))) return 'subscriptions.mail.cardRetiredOtherCard';
  return sub.status === 'FAILED' ? 'subscriptions.mail.cardRetiredRetrying' : 'subscriptions.mail.cardRetiredNoCard';
}

/**
 * The body of a renewal's failure by a chargeback (renewalChargedBack) for the subscription as it is now: still
 * retrying that renewal (FAILED in the period before the charge's), the retry charges the saved card it renews with
 * now, valid then (the chargeback moved it off the disputed card: dropSavedCard), or asks for a new card before the
 * retry; anything else (renewed meanwhile by the retry or a card the customer saved, cancelled, lapsed) is the
 * chargeback and the card's removal alone: not chargedBack's "nor charge it again", which a mail sent after the retry
 * renewed the subscription with the other saved card said of a renewal charged again.
 */
function renewalChargedBackBody(sub: SubscriptionRow, charge: ChargeRow, cardNow: CardRow | undefined, now: number): MessageKey {
  if (sub.status !== 'FAILED' || sub.period_number !== charge.period_number - 1 || sub.next_attempt_at === null)
    return 'subscriptions.mail.renewalChargedBackAlone';
  if (cardNow && !cardExpired(cardNow, nextChargeAt(sub, now))) return 'subscriptions.mail.renewalChargedBackOtherCard';
  return 'subscriptions.mail.renewalChargedBackNoCard';
}

const SUBJECTS: Record<SubscriptionMailKind, MessageKey> = {
  purchased: 'subscriptions.mail.purchasedSubject',
  cancelled: 'subscriptions.mail.cancelledSubject',
  billingFailed: 'subscriptions.mail.billingFailedSubject',
  lapsed: 'subscriptions.mail.lapsedSubject',
  cardRetired: 'subscriptions.mail.cardRetiredSubject',
  startDeclined: 'subscriptions.mail.startDeclinedSubject',
  startRefunded: 'subscriptions.mail.startDeclinedSubject',
  renewalRefunded: 'subscriptions.mail.refundedSubject',
  upgradeApplied: 'subscriptions.mail.upgradeAppliedSubject',
  upgradeConfirmed: 'subscriptions.mail.upgradeAppliedSubject',
  upgradeDeclined: 'subscriptions.mail.upgradeDeclinedSubject',
  upgradeRefunded: 'subscriptions.mail.refundedSubject',
  paymentRefunded: 'subscriptions.mail.refundedSubject',
  upgradeRefundedByHand: 'subscriptions.mail.refundedSubject',
  paymentRefundedByHand: 'subscriptions.mail.refundedSubject',
  chargedBack: 'subscriptions.mail.chargedBackSubject',
  renewalChargedBack: 'subscriptions.mail.chargedBackSubject',
};
const BODIES: Record<SubscriptionMailKind, MessageKey> = {
  purchased: 'subscriptions.mail.purchased',
  cancelled: 'subscriptions.mail.cancelled',
  billingFailed: 'subscriptions.mail.billingFailed',
  lapsed: 'subscriptions.mail.lapsed',
  cardRetired: 'subscriptions.mail.cardRetiredNoCard',
  startDeclined: 'subscriptions.mail.startDeclined',
  startRefunded: 'subscriptions.mail.startRefunded',
  renewalRefunded: 'subscriptions.mail.renewalRefunded',
  upgradeApplied: 'subscriptions.mail.upgradeApplied',
  upgradeConfirmed: 'subscriptions.mail.upgradeConfirmed',
  upgradeDeclined: 'subscriptions.mail.upgradeDeclined',
  upgradeRefunded: 'subscriptions.mail.upgradeRefunded',
  paymentRefunded: 'subscriptions.mail.paymentRefunded',
  upgradeRefundedByHand: 'subscriptions.mail.upgradeRefundedByHand',
  paymentRefundedByHand: 'subscriptions.mail.paymentRefundedByHand',
  chargedBack: 'subscriptions.mail.chargedBack',
  renewalChargedBack: 'subscriptions.mail.renewalChargedBackAlone',
};

/**
 * `clock`: the runner's (the system's when not given): the mail it queues is due by the clock the worker claims by,
 * which by Date.now() under a test's clock a year back put it a year ahead of the worker, never sent.
 */
export function answerDeadlineHandler(deps: { db: Kysely<Database>; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return (job: { chargeId: number }) => mailUntoldOutcome(deps.db, Number(job.chargeId), clock.now());
}

/**
 * `clock`: the app's (the system's when not given), as the chargeback that chose the card and the billing run that
 * charges it read it: by Date.now() under a test's clock a year back, the card valid for the retry was expired "now",
 * and the mail asked for a new card while the retry charged that one (test/subscriptions/mail-clock.test.ts).
 */
export function subscriptionMailHandler(deps: { db: Kysely<Database>; mailer: Mailer; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: { subscriptionId: number; kind: SubscriptionMailKind; chargeId?: number; lastFour?: string }) => {
    const now = clock.now();
    const sub = await findSubscription(deps.db, job.subscriptionId);
    const subscriber = sub ? await subscriberOf(deps.db, Number(sub.user_id)) : undefined;
    if (!sub || !subscriber || !(job.kind in SUBJECTS)) return 'skipped';
    const aboutCharge = CHARGE_MAILS.includes(job.kind);
    const charge = aboutCharge ? await findCharge(deps.db, Number(job.chargeId)) : undefined;
    if (aboutCharge && Number(charge?.subscription_id) !== Number(sub.id)) return 'skipped';
    const plan = (await findPlan(deps.db, Number(charge?.plan_id ?? sub.plan_id)))!;
    // The plan the subscription is on now, which a declined upgrade left it on.
    const current = job.kind === 'upgradeDeclined' ? (await findPlan(deps.db, Number(sub.plan_id)))! : plan;
    const aboutCard = job.kind === 'cardRetired' || job.kind === 'renewalChargedBack';
    const cardNow = aboutCard && sub.card_id !== null ? await findCard(deps.db, Number(sub.card_id)) : undefined;
    const retiredBody = job.kind === 'cardRetired' ? cardRetiredBody(sub, cardNow, now) : null;
    if (job.kind === 'cardRetired' && retiredBody === null) return 'skipped';
    const chargedBackBody = job.kind === 'renewalChargedBack' ? renewalChargedBackBody(sub, charge!, cardNow, now) : null;
    const language: Language = isLanguage(subscriber.language) ? subscriber.language : 'et';
    const params = {
      plan: titleOf(plan, language),
      current: titleOf(current, language),
      name: subscriber.first_name ?? '',
      // The day in Tallinn the period ends on: in UTC, an end in the first hours of a day there was the day before.
      until: lastLocalDay(Number(sub.period_end)),
      amount: charge ? formatEuros(charge.amount_cents, language) : '',
      lastFour: job.lastFour ?? '',
      cardNow: cardNow?.last_four ?? '',
      // The day in Tallinn a retry of a failed renewal is due on.
      retryOn: sub.next_attempt_at === null ? '' : localTime(Number(sub.next_attempt_at)).date,
    };
    // A subscription cancelled while its renewal failed ends at once (ENDED): no "use it until" a day already past.
    const body =
      retiredBody ??
      chargedBackBody ??
      (job.kind === 'cancelled' && sub.status === 'ENDED' ? 'subscriptions.mail.cancelledEnded' : BODIES[job.kind]);
    const paragraphs = [translate(language, 'subscriptions.mail.greeting', params), translate(language, body, params)];
    await deps.mailer.send({
      to: subscriber.email,
      subject: translate(language, SUBJECTS[job.kind], params),
      text: paragraphs.join('\n\n'),
      html: `<!doctype html><html><body style="font-family:sans-serif">${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}</body></html>`,
    });
    return 'sent';
  };
}
