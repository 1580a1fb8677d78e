import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { titleOf } from './plans.js';
import { findPlan, findSubscription, subscriberOf } from './subscriptions.repository.js';

// The subscription mails: purchased, cancelled, billing failed. Queued in the outbox by the
// transaction that made the change, so each goes out once; rendered when sent, in the
// subscriber's language, from the subscription as it is then.

export const SUBSCRIPTION_MAIL_JOB = 'subscription.mail';
const MAIL_ATTEMPTS = 8;

export type SubscriptionMailKind = 'purchased' | 'cancelled' | 'billingFailed';

export async function queueSubscriptionMail(trx: Db, subscriptionId: number, kind: SubscriptionMailKind, now: number) {
  await enqueueJob(trx, { type: SUBSCRIPTION_MAIL_JOB, payload: { subscriptionId, kind } }, { maxAttempts: MAIL_ATTEMPTS, now });
}

const SUBJECTS: Record<SubscriptionMailKind, MessageKey> = {
  purchased: 'subscriptions.mail.purchasedSubject',
  cancelled: 'subscriptions.mail.cancelledSubject',
  billingFailed: 'subscriptions.mail.billingFailedSubject',
};
const BODIES: Record<SubscriptionMailKind, MessageKey> = {
  purchased: 'subscriptions.mail.purchased',
  cancelled: 'subscriptions.mail.cancelled',
  billingFailed: 'subscriptions.mail.billingFailed',
};

export function subscriptionMailHandler(deps: { db: Kysely<Database>; mailer: Mailer }): JobHandler {
  return async (job: { subscriptionId: number; kind: SubscriptionMailKind }) => {
    const sub = await findSubscription(deps.db, job.subscriptionId);
    const subscriber = sub ? await subscriberOf(deps.db, Number(sub.user_id)) : undefined;
    if (!sub || !subscriber || !(job.kind in SUBJECTS)) return 'skipped';
    const plan = (await findPlan(deps.db, Number(sub.plan_id)))!;
    const language: Language = isLanguage(subscriber.language) ? subscriber.language : 'et';
    const params = {
      plan: titleOf(plan, language),
      name: subscriber.first_name ?? '',
      until: new Date(Number(sub.period_end)).toISOString().slice(0, 10),
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
