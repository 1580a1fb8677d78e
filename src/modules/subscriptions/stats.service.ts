import { sql, type Kysely } from 'kysely';
import { rowsByIdPages } from '../../db/id-pages.js';
import type { Database } from '../../db/schema.js';
import { accountTrialSubjectSql } from './subscriptions.repository.js';

// `subscription stats`: per calendar month (UTC) the revenue (charges settled in the month, less what went back in
// the month of any charge that had settled: a refund in part or whole, a chargeback; each is booked in the month it
// was made, so a month once closed does not change), subscriptions started (their first charge settled, even if it
// went back later), trials started and how many of them were converted (their first month was paid),
// subscriptions churned (ended or lapsed after they had started), the active count at the month's
// end, and churn as churned / active at the month's start. Read in keyset pages, so memory grows
// with the months, not with the subscriptions. Money taken for nothing (refund_due from its settle on) is no
// revenue, nor is its refund taken off.

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
  const subs = rowsByIdPages(
    (afterId) =>
      db
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
                // Any charge that settled: a period's, or an upgrade's that ended a trial and paid the first month
                // (trials.ts); an upgrade of a paid period comes after a settled period's charge anyway. Settled once
                // is enough: a refund or chargeback later does not unmake the months it started in.
                .where('subscription_charge.settled_at', 'is not', null),
            )
            .as('paid'),
        )
        .where('subscription.id', '>', afterId)
        .orderBy('subscription.id')
        .limit(PAGE)
        .execute(),
    PAGE,
  );
  for await (const sub of subs) {
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
  const charges = rowsByIdPages(
    (afterId) =>
      db
        .selectFrom('subscription_charge')
        .select(['id', 'amount_cents', 'settled_at'])
        .where('settled_at', 'is not', null)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    PAGE,
  );
  for await (const charge of charges) at(monthOf(Number(charge.settled_at))).revenue += charge.amount_cents;
  const refunds = rowsByIdPages(
    (afterId) =>
      db
        .selectFrom('subscription_charge_refund as r')
        .innerJoin('subscription_charge as c', 'c.id', 'r.charge_id')
        .select(['r.id', 'r.amount_cents', 'r.refunded_at'])
        // Of a charge counted above: what went back of money taken for nothing was never revenue.
        .where('c.settled_at', 'is not', null)
        .where('r.id', '>', afterId)
        .orderBy('r.id')
        .limit(PAGE)
        .execute(),
    PAGE,
  );
  for await (const refund of refunds) at(monthOf(Number(refund.refunded_at))).revenue -= refund.amount_cents;
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
