import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { conflict } from '../../infra/domain-error.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { lockingSubscriptions } from './subscriptions.repository.js';
import { lockCardOwners } from './cards.repository.js';
import { toWireMoney } from '../pricing/index.js';

// A person's subscriptions (plan, periods, their charges), saved cards (brand, last four digits,
// expiry; never the gateway's token) and what the subscriptions gave them (takes). The erasure
// ends every live subscription at once (nothing more is charged to a person who is gone), deletes
// the saved cards with their tokens and the takes, and keeps the charges: money that moved, tied
// to a client account that the accounts part anonymises. It is refused (409) while a charge is at
// the gateway, whose answer would otherwise extend a subscription that was just ended.

/** Each list holds at most this many rows, newest first; `truncated` and a note say when there were more. */
const CAP = 1_000;
const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));
const euros = (cents: number) => toWireMoney(Number(cents));
const LIVE = ['PENDING', 'TRIAL', 'ACTIVE', 'FAILED'] as const;

async function exportSubscriptions(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return { subscriptions: [], cards: [], takes: [], truncated: false };
  const subscriptions = await db
    .selectFrom('subscription as s')
    .innerJoin('subscription_plan as p', 'p.id', 's.plan_id')
    .select(['s.id', 's.store_code', 'p.code as plan', 's.status', 's.trial', 's.period_start', 's.period_end'])
    .select(['s.cancel_at_period_end', 's.created_at', 's.ended_at'])
    .where('s.client_account_id', 'in', ids)
    .orderBy('s.id', 'desc')
    .limit(CAP + 1)
    .execute();
  const subscriptionIds = subscriptions.map((row) => Number(row.id));
  const charges =
    subscriptionIds.length === 0
      ? []
      : await db
          .selectFrom('subscription_charge')
          .select(['subscription_id', 'period_number', 'purpose', 'amount_cents', 'refunded_cents', 'state', 'created_at'])
          .where('subscription_id', 'in', subscriptionIds)
          .orderBy('id', 'desc')
          .limit(CAP + 1)
          .execute();
  const cards = await db
    .selectFrom('subscription_card')
    .select(['store_code', 'state', 'brand', 'last_four', 'expiry_month', 'expiry_year', 'is_default', 'created_at'])
    .where('client_account_id', 'in', ids)
    .orderBy('id', 'desc')
    .limit(CAP + 1)
    .execute();
  const takes = await db
    .selectFrom('subscription_take')
    .select(['subscription_id', 'product_id', 'kind', 'period_number', 'created_at', 'returned_at'])
    .where('client_account_id', 'in', ids)
    .orderBy('id', 'desc')
    .limit(CAP + 1)
    .execute();
  const truncated = [subscriptions, charges, cards, takes].some((rows) => rows.length > CAP);
  return {
    subscriptions: subscriptions.slice(0, CAP).map((row) => ({
      id: Number(row.id),
      store: row.store_code,
      plan: row.plan,
      status: row.status,
      trial: Boolean(row.trial),
      periodStart: time(row.period_start),
      periodEnd: time(row.period_end),
      cancelAtPeriodEnd: Boolean(row.cancel_at_period_end),
      since: time(row.created_at),
      endedAt: time(row.ended_at),
      charges: charges
        .slice(0, CAP)
        .filter((charge) => Number(charge.subscription_id) === Number(row.id))
        .map((charge) => ({
          period: charge.period_number,
          purpose: charge.purpose,
          amount: euros(charge.amount_cents),
          // What of it went back (a refund in part leaves the charge settled): without it, the whole sum read as kept.
          refunded: euros(charge.refunded_cents),
          state: charge.state,
          at: time(charge.created_at),
        })),
    })),
    cards: cards.slice(0, CAP).map((row) => ({
      store: row.store_code,
      state: row.state,
      brand: row.brand,
      lastFour: row.last_four,
      expires: row.expiry_year === null ? null : `${row.expiry_year}-${String(row.expiry_month).padStart(2, '0')}`,
      isDefault: Boolean(row.is_default),
      since: time(row.created_at),
    })),
    takes: takes.slice(0, CAP).map((row) => ({
      subscriptionId: Number(row.subscription_id),
      productId: Number(row.product_id),
      kind: row.kind,
      period: row.period_number,
      takenAt: time(row.created_at),
      returnedAt: time(row.returned_at),
    })),
    truncated,
    ...(truncated ? { note: `Each list holds only the newest ${CAP} entries; ask customer service for the rest.` } : {}),
  };
}

async function refuseWhileCharging(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return;
  // The accounts first, as a card's start, confirmation, removal or new default takes its account
  // before its cards and the subscriptions using them: the erasure deletes those cards and then
  // updates the accounts, and taken in the other order the two would wait for each other.
  await lockCardOwners(trx, ids);
  // Then the person's subscriptions, as a renewal's claim locks its subscription: a claim
  // committed meanwhile shows its pending charge below, and a later claim waits for the erasure
  // and finds the subscription ended.
  await lockingSubscriptions(trx).where('client_account_id', 'in', ids).execute();
  const charging = await trx
    .selectFrom('subscription_charge as c')
    .innerJoin('subscription as s', 's.id', 'c.subscription_id')
    .select('c.id')
    .where('s.client_account_id', 'in', ids)
    .where('c.state', '=', 'pending')
    .limit(1)
    .executeTakeFirst();
  if (charging) throw conflict('gdpr.subscriptionCharging');
}

async function eraseSubscriptions(trx: Db, subject: PersonalDataSubject, now: number) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return;
  await trx
    .updateTable('subscription')
    .set({ status: 'ENDED', live_key: null, ended_at: now, next_attempt_at: null, updated_at: now })
    .where('client_account_id', 'in', ids)
    .where('status', 'in', LIVE)
    .execute();
  await trx.updateTable('subscription').set({ card_id: null, updated_at: now }).where('client_account_id', 'in', ids).execute();
  await trx.deleteFrom('subscription_card').where('client_account_id', 'in', ids).execute();
  await trx.deleteFrom('subscription_take').where('client_account_id', 'in', ids).execute();
}

/** The subscriptions module's part of "your data". */
export const subscriptionsPersonalData: PersonalDataPart = {
  name: 'subscriptions',
  export: exportSubscriptions,
  refuseErasure: refuseWhileCharging,
  erase: eraseSubscriptions,
};
