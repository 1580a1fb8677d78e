import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { accountTrialSubjectSql } from './subscriptions.repository.js';

// `subscription stats`: per calendar month (UTC) the revenue (settled charges, less what refunds in part at the
// gateway gave back of them, in the month each settled), subscriptions
// started, trials started and how many of them were converted (their first month was paid),
// subscriptions churned (ended or lapsed after they had started), the active count at the month's
// end, and churn as churned / active at the month's start. Read in keyset pages, so memory grows
// with the months, not with the subscriptions.

export interface MonthStats {
  month: string;
  revenue: number;
  started: number;
  trials: number;
  trialsConverted: number;
  trialConversion: number | null;
  churned: number;
  activeAtEnd: number;
  churnRate: number | null;
}

const PAGE = 5000;
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

export async function subscriptionStats(db: Kysely<Database>): Promise<MonthStats[]> {
  const months = new Map<string, Omit<MonthStats, 'month' | 'trialConversion' | 'churnRate' | 'activeAtEnd'>>();
  const at = (month: string) => {
    let stats = months.get(month);
    if (!stats) months.set(month, (stats = { revenue: 0, started: 0, trials: 0, trialsConverted: 0, churned: 0 }));
    return stats;
  };
  for (let afterId = 0; ;) {
    const subs = await db
      .selectFrom('subscription')
      .select(['subscription.id', 'subscription.created_at', 'subscription.ended_at'])
      // An exists, not a join: an upgrade during a trial records the new plan's kind of trial on the same
      // subscription (trials.ts), and a join gave such a subscription two rows, counted twice. The
      // account's subject (trialSubjects) is named, so the look-up is one of the table's primary key.
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('subscription_trial_use')
              .select('subscription_trial_use.subscription_id')
              .where('subscription_trial_use.subject', '=', accountTrialSubjectSql(sql.ref('subscription.client_account_id')))
              .whereRef('subscription_trial_use.subscription_id', '=', 'subscription.id'),
          )
          .as('trial'),
      )
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('subscription_charge')
              .select('subscription_charge.id')
              .whereRef('subscription_charge.subscription_id', '=', 'subscription.id')
              // Any settled charge: a period's, or an upgrade's that ended a trial and paid the first month
              // (trials.ts); an upgrade of a paid period comes after a settled period's charge anyway.
              .where('subscription_charge.state', '=', 'settled'),
          )
          .as('paid'),
      )
      .where('subscription.id', '>', afterId)
      .orderBy('subscription.id')
      .limit(PAGE)
      .execute();
    if (subs.length === 0) break;
    afterId = Number(subs.at(-1)!.id);
    for (const sub of subs) {
      const trial = Boolean(sub.trial);
      const paid = Boolean(sub.paid);
      // A subscription whose first charge was declined never started.
      if (!trial && !paid) continue;
      const started = monthOf(Number(sub.created_at));
      const ended = sub.ended_at === null ? null : monthOf(Number(sub.ended_at));
      at(started).started += 1;
      if (trial) at(started).trials += 1;
      if (trial && paid) at(started).trialsConverted += 1;
      if (ended !== null) at(ended).churned += 1;
    }
  }
  for (let afterId = 0; ;) {
    const charges = await db
      .selectFrom('subscription_charge')
      .select(['id', 'amount_cents', 'refunded_cents', 'updated_at'])
      .where('state', '=', 'settled')
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (charges.length === 0) break;
    afterId = Number(charges.at(-1)!.id);
    // What a refund in part at the gateway gave back is no revenue (a charge refunded whole is `refunded`, not read here).
    for (const charge of charges) at(monthOf(Number(charge.updated_at))).revenue += charge.amount_cents - charge.refunded_cents;
  }
  // Every month a subscription started or ended in is a key, and one ends no earlier than it
  // started: so the active count at a month's end is the running sum of started less churned.
  const ordered = [...months.keys()].sort();
  let activeAtStart = 0;
  return ordered.map((month, index) => {
    const stats = months.get(month)!;
    const activeAtEnd = activeAtStart + stats.started - stats.churned;
    const previous = ordered[index - 1];
    const row = {
      month,
      ...stats,
      revenue: stats.revenue / 100,
      trialConversion: stats.trials === 0 ? null : Math.round((stats.trialsConverted / stats.trials) * 1000) / 1000,
      activeAtEnd,
      churnRate: previous === undefined || activeAtStart === 0 ? null : Math.round((stats.churned / activeAtStart) * 1000) / 1000,
    };
    activeAtStart = activeAtEnd;
    return row;
  });
}
