import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { lastLocalDay } from '../../infra/shop-time.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { findCharge } from './charges.repository.js';
import { titleOf } from './plans.js';
import { findPlan, findSubscription, subscriberOf } from './subscriptions.repository.js';

// The subscription mails: purchased, cancelled, billing failed; and about a charge: a first month
// whose customer was told its payment was being processed declined, so the subscription did not
// start (billing.apply.ts; settled, it is the purchased mail), an upgrade
// whose declined charge the bank settled after all is active (billing.apply.ts), an upgrade whose
// customer was told its payment was being processed is active, or declined and the plan unchanged
// (billing.apply.ts), a charge taken for nothing was refunded (refunds.ts; an upgrade's names it).
// Queued in the outbox by the transaction that made the change, so each goes out once; rendered
// when sent, in the subscriber's language, from the subscription as it is then, and a charge's mail
// from its charge: the plan it paid for and its amount, whatever plan the subscription is on by then
// (which a declined upgrade's mail names as the plan kept).

export const SUBSCRIPTION_MAIL_JOB = 'subscription.mail';
const MAIL_ATTEMPTS = 8;

export type SubscriptionMailKind = 'purchased' | 'cancelled' | 'billingFailed' | ChargeMailKind;
/** The mails about one charge, which the job names. */
type ChargeMailKind = 'startDeclined' | 'upgradeApplied' | 'upgradeConfirmed' | 'upgradeDeclined' | 'upgradeRefunded' | 'paymentRefunded';
const CHARGE_MAILS: readonly string[] = [
  'startDeclined',
  'upgradeApplied',
  'upgradeConfirmed',
  'upgradeDeclined',
  'upgradeRefunded',
  'paymentRefunded',
] satisfies ChargeMailKind[];

export async function queueSubscriptionMail(
  trx: Db,
  subscriptionId: number,
  kind: Exclude<SubscriptionMailKind, ChargeMailKind>,
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

const SUBJECTS: Record<SubscriptionMailKind, MessageKey> = {
  purchased: 'subscriptions.mail.purchasedSubject',
  cancelled: 'subscriptions.mail.cancelledSubject',
  billingFailed: 'subscriptions.mail.billingFailedSubject',
  startDeclined: 'subscriptions.mail.startDeclinedSubject',
  upgradeApplied: 'subscriptions.mail.upgradeAppliedSubject',
  upgradeConfirmed: 'subscriptions.mail.upgradeAppliedSubject',
  upgradeDeclined: 'subscriptions.mail.upgradeDeclinedSubject',
  upgradeRefunded: 'subscriptions.mail.refundedSubject',
  paymentRefunded: 'subscriptions.mail.refundedSubject',
};
const BODIES: Record<SubscriptionMailKind, MessageKey> = {
  purchased: 'subscriptions.mail.purchased',
  cancelled: 'subscriptions.mail.cancelled',
  billingFailed: 'subscriptions.mail.billingFailed',
  startDeclined: 'subscriptions.mail.startDeclined',
  upgradeApplied: 'subscriptions.mail.upgradeApplied',
  upgradeConfirmed: 'subscriptions.mail.upgradeConfirmed',
  upgradeDeclined: 'subscriptions.mail.upgradeDeclined',
  upgradeRefunded: 'subscriptions.mail.upgradeRefunded',
  paymentRefunded: 'subscriptions.mail.paymentRefunded',
};

export function subscriptionMailHandler(deps: { db: Kysely<Database>; mailer: Mailer }): JobHandler {
  return async (job: { subscriptionId: number; kind: SubscriptionMailKind; chargeId?: number }) => {
    const sub = await findSubscription(deps.db, job.subscriptionId);
    const subscriber = sub ? await subscriberOf(deps.db, Number(sub.user_id)) : undefined;
    if (!sub || !subscriber || !(job.kind in SUBJECTS)) return 'skipped';
    const aboutCharge = CHARGE_MAILS.includes(job.kind);
    const charge = aboutCharge ? await findCharge(deps.db, Number(job.chargeId)) : undefined;
    if (aboutCharge && Number(charge?.subscription_id) !== Number(sub.id)) return 'skipped';
    const plan = (await findPlan(deps.db, Number(charge?.plan_id ?? sub.plan_id)))!;
    // The plan the subscription is on now, which a declined upgrade left it on.
    const current = job.kind === 'upgradeDeclined' ? (await findPlan(deps.db, Number(sub.plan_id)))! : plan;
    const language: Language = isLanguage(subscriber.language) ? subscriber.language : 'et';
    const params = {
      plan: titleOf(plan, language),
      current: titleOf(current, language),
      name: subscriber.first_name ?? '',
      // The day in Tallinn the period ends on: in UTC, an end in the first hours of a day there was the day before.
      until: lastLocalDay(Number(sub.period_end)),
      amount: charge ? formatEuros(charge.amount_cents, language) : '',
    };
    const paragraphs = [translate(language, 'subscriptions.mail.greeting', params), translate(language, BODIES[job.kind], params)];
    await deps.mailer.send({
      to: subscriber.email,
      subject: translate(language, SUBJECTS[job.kind], params),
      text: paragraphs.join('\n\n'),
      html: `<!doctype html><html><body style="font-family:sans-serif">${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}</body></html>`,
    });
    return 'sent';
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
