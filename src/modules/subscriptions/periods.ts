// The calendar and money rules of subscriptions, in one place: how long a period is, what an
// upgrade costs for the days left, and when a failed charge is tried again.

export const DAY_MS = 86_400_000;

/** The same moment `months` calendar months later (UTC); the 31st becomes the month's last day. */
export function addMonths(ms: number, months: number): number {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(date.getUTCDate(), lastDay),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds(),
  );
}

/**
 * What an upgrade costs now: the monthly difference times the days left of the period over the
 * period's days. A started day counts as left (the subscriber gets the better plan for it); the
 * period's days are its length in whole days (a month of 28 to 31). The result is rounded to the
 * cent, half up, in integer arithmetic: floor((2 * diff * left + days) / (2 * days)).
 * Example: 10.00 more a month, 16 days left of 30: 1000 * 16 / 30 = 533.33... -> 5.33.
 */
export function proratedCents(differenceCents: number, now: number, periodStart: number, periodEnd: number): number {
  if (differenceCents <= 0 || now >= periodEnd) return 0;
  const days = Math.max(1, Math.round((periodEnd - periodStart) / DAY_MS));
  const left = Math.min(days, Math.ceil((periodEnd - now) / DAY_MS));
  return Math.floor((2 * differenceCents * left + days) / (2 * days));
}

/**
 * After a failed charge the subscription is tried again 1, 3 and 7 days after it was due
 * (3 retries over 7 days); when the last one fails too, it lapses.
 */
export const RETRY_AFTER_FIRST_FAILURE_DAYS = [1, 3, 7] as const;

/**
 * A failure learned more than this after its attempt was due is late (nextAttemptAt). Within it, a decline the
 * gateway tells with its latency (a callback a few minutes on, retried) or an hourly billing run's keeps the
 * schedule to the millisecond: on-time declines must not move their retries.
 */
export const LATE_FAILURE_AFTER_MS = 60 * 60_000;

/**
 * When the next attempt is due after `failedAttempts` failures, the last of them an attempt due at `attemptDueAt`
 * (the period's end for the first, its retry's time for a retry) that the shop learned failed at `learnedAt`; null:
 * lapse. Each attempt comes its interval after the one before was due (1, 2 and 4 days: the days above), so a
 * failure told within the hour (LATE_FAILURE_AFTER_MS) keeps the schedule from the period's end. One learned late
 * (a chargeback, weeks on or 23 hours on; a refund in the gateway's portal, or a callback saying failed, that came
 * late) gets its next attempt no sooner than a full interval after it was learned, and the rest at the same
 * intervals: the customer has the time to act a decline on time gives, and its mail names that day. Counted from the
 * period's end, a failure learned after its retry's time had every retry due at once (the mail named a day already
 * past; the subscription lapsed within the next runs, before the customer could save a card), and one learned 23
 * hours on had its retry an hour later, the mail telling the customer to save a new card "before" it.
 */
export function nextAttemptAt(failedAttempts: number, attemptDueAt: number, learnedAt: number): number | null {
  const days = RETRY_AFTER_FIRST_FAILURE_DAYS[failedAttempts - 1];
  if (days === undefined) return null;
  const interval = (days - (RETRY_AFTER_FIRST_FAILURE_DAYS[failedAttempts - 2] ?? 0)) * DAY_MS;
  const onTime = attemptDueAt + interval;
  return learnedAt - attemptDueAt > LATE_FAILURE_AFTER_MS ? Math.max(onTime, learnedAt + interval) : onTime;
}

/** Plans of one family replace each other (upgrade, downgrade); a client has one live subscription per family. */
export function familyOf(kind: string): 'AUDIO' | 'EBOOK' {
  return kind === 'EBOOK_SHELF' ? 'EBOOK' : 'AUDIO';
}

/**
 * When a subscription is charged next: its retry's time while it retries a failed renewal (FAILED), else its
 * period's end; now, when that has passed. A saved card chosen for it (when its own goes: cards.service.ts) is one
 * that has not expired by then, and a mail naming the card it renews with names one that has not (subscriptions.mails.ts).
 */
export function nextChargeAt(
  sub: { status: string; period_end: number | string; next_attempt_at: number | string | null },
  now: number,
): number {
  const due = sub.status === 'FAILED' && sub.next_attempt_at !== null ? Number(sub.next_attempt_at) : Number(sub.period_end);
  return Math.max(now, due);
}
