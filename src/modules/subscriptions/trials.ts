import type { Db } from '../../db/database.js';
import { DAY_MS } from './periods.js';
import { recordTrial, trialSubjects, trialUsesOf, type PlanRow, type SubscriptionRow } from './subscriptions.repository.js';

// What a plan change does to a trial. A trial lasts at most the trial days of the plan it is on,
// counted from the trial's start, and a user and a client account have each kind of plan's trial once
// (subscription_trial_use). So an upgrade during a trial keeps the trial only as far as the new plan's
// own trial reaches from that start (never further than it ran already), and the client has then had
// the new plan's trial too. When that leaves nothing (the days gone are more than the new plan's trial,
// it has none, or its kind's trial was had on another subscription), the trial ends and the new plan's
// first month is charged at once (subscriptions.service.ts; a declined charge changes nothing, the
// trial goes on). A downgrade waits for the trial's end, as it waits for a period's end, and never
// lengthens it: the trial stays that of the plan it is on. Before, an upgrade kept the old plan's whole
// trial (AUDIO1's 14 days on AUDIOMAX, whose trial is 7) and recorded no trial of the new plan's kind,
// which the client could then take again.

/**
 * When the trial of `sub` ends once it switches to `plan`, the plan's kind of trial then recorded as
 * had on `sub`; null when no trial is left on that plan, and nothing is recorded. A trial of that kind
 * recorded meanwhile by another subscription of the user or account is a unique violation, for the
 * caller to answer (the row is inserted, not skipped, so that two subscriptions cannot both have it).
 */
export async function trialEndOnPlan(trx: Db, sub: SubscriptionRow, plan: PlanRow, now: number): Promise<number | null> {
  const end = Math.min(Number(sub.period_end), Number(sub.period_start) + plan.trial_days * DAY_MS);
  if (end <= now) return null;
  const userId = Number(sub.user_id);
  const accountId = Number(sub.client_account_id);
  const uses = await trialUsesOf(trx, userId, accountId, plan.kind);
  // Had on this very subscription (a plan of the kind the trial started on): the same trial goes on.
  if (uses.some((use) => Number(use.subscription_id) !== Number(sub.id))) return null;
  const recorded = new Set(uses.map((use) => use.subject));
  const missing = trialSubjects(userId, accountId).filter((subject) => !recorded.has(subject));
  await recordTrial(trx, missing, plan.kind, Number(sub.id), now);
  return end;
}
