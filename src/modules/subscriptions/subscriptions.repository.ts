// The SQL of plans, subscriptions and trials (cards: cards.repository.ts; charges: charges.repository.ts).
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PlanKind, SubscriptionPlanTable, SubscriptionStatus, SubscriptionTable } from './subscriptions.tables.js';

export type PlanRow = Selectable<SubscriptionPlanTable>;
export type SubscriptionRow = Selectable<SubscriptionTable>;

/** Statuses of a subscription that still holds its family's slot. */
export const LIVE: readonly SubscriptionStatus[] = ['PENDING', 'TRIAL', 'ACTIVE', 'FAILED'];

export function plansOfStore(db: Db, storeCode: string): Promise<PlanRow[]> {
  return db
    .selectFrom('subscription_plan')
    .selectAll()
    .where('is_active', '=', true)
    .orderBy('position')
    .orderBy('id')
    .execute()
    .then((plans) => plans.filter((plan) => plan.stores.split(',').includes(storeCode)));
}

export function findPlan(db: Db, id: number): Promise<PlanRow | undefined> {
  return db.selectFrom('subscription_plan').selectAll().where('id', '=', id).executeTakeFirst();
}

export function plansByIds(db: Db, ids: number[]): Promise<PlanRow[]> {
  return ids.length === 0 ? Promise.resolve([]) : db.selectFrom('subscription_plan').selectAll().where('id', 'in', ids).execute();
}

/** One page of the client's subscriptions, newest first (ended ones too: the list only grows), and how many there are. */
export async function subscriptionsPageOf(
  db: Db,
  clientAccountId: number,
  page: { offset: number; perPage: number },
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('subscription')
      .selectAll()
      .where('client_account_id', '=', clientAccountId)
      .orderBy('id', 'desc')
      .limit(page.perPage)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('subscription')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('client_account_id', '=', clientAccountId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export function findSubscription(db: Db, id: number): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscription').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Subscription rows locked for the rest of the transaction: a no-op update takes their row locks
 * on PostgreSQL (SQLite runs one write transaction at a time). Narrow it with `where`.
 */
export function lockingSubscriptions(db: Db) {
  return db.updateTable('subscription').set((eb) => ({ updated_at: eb.ref('updated_at') }));
}

/**
 * A subscription, locked: a renewal's claim and an erasure of its person take it first, so one of
 * them sees what the other committed.
 */
export function lockSubscription(db: Db, id: number): Promise<SubscriptionRow | undefined> {
  return lockingSubscriptions(db).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The caller's subscription, locked (lockSubscription); undefined also when it is another client's (the same 404 as none). */
export async function lockOwnSubscription(db: Db, clientAccountId: number, id: number): Promise<SubscriptionRow | undefined> {
  const row = await lockSubscription(db, id);
  return row && Number(row.client_account_id) === clientAccountId ? row : undefined;
}

/** The caller's subscription; undefined also when it is another client's (the same 404 as none). */
export async function ownSubscription(db: Db, clientAccountId: number, id: number): Promise<SubscriptionRow | undefined> {
  const row = await findSubscription(db, id);
  return row && Number(row.client_account_id) === clientAccountId ? row : undefined;
}

/** The subscription holding a live key (`<client account>:<family>`): the client's live one of that family. */
export function liveSubscription(db: Db, liveKey: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscription').selectAll().where('live_key', '=', liveKey).executeTakeFirst();
}

export async function insertSubscription(db: Db, row: Insertable<SubscriptionTable>): Promise<number> {
  const inserted = await db.insertInto('subscription').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function updateSubscription(db: Db, id: number, changes: Updateable<SubscriptionTable>): Promise<void> {
  await db.updateTable('subscription').set(changes).where('id', '=', id).execute();
}

/** Who a trial is recorded against: the user and the client account (a trial is once per each, per kind of plan). */
export const trialSubjects = (userId: number, clientAccountId: number) => [`U${userId}`, `A${clientAccountId}`];

/** The client account's subject of trialSubjects, in SQL, of the account id `clientAccountId` refers to. */
export const accountTrialSubjectSql = (clientAccountId: ReturnType<typeof sql.ref>) => sql<string>`'A' || ${clientAccountId}`;

/** The trials of this kind of plan recorded against the user or the client account, and the subscription each was had on. */
export function trialUsesOf(db: Db, userId: number, clientAccountId: number, kind: PlanKind) {
  return db
    .selectFrom('subscription_trial_use')
    .select(['subject', 'subscription_id'])
    .where('subject', 'in', trialSubjects(userId, clientAccountId))
    .where('plan_kind', '=', kind)
    .execute();
}

/** Whether the user or the client account has had a trial of this kind of plan. */
export async function hadTrial(db: Db, userId: number, clientAccountId: number, kind: PlanKind): Promise<boolean> {
  return (await trialUsesOf(db, userId, clientAccountId, kind)).length > 0;
}

/**
 * Records the subjects' trial of this kind of plan as had on the subscription; a subject that has one
 * already is a unique violation (its primary key), which the caller answers.
 */
export async function recordTrial(db: Db, subjects: string[], kind: PlanKind, subscriptionId: number, now: number) {
  if (subjects.length === 0) return;
  await db
    .insertInto('subscription_trial_use')
    .values(subjects.map((subject) => ({ subject, plan_kind: kind, subscription_id: subscriptionId, created_at: now })))
    .execute();
}

/** Who gets a subscription's mails and gateway requests: the user's email and language. */
export function subscriberOf(db: Db, userId: number) {
  return db.selectFrom('app_user').select(['email', 'language', 'first_name']).where('id', '=', userId).executeTakeFirst();
}

/** Subscriptions whose period ended (renewal or end) or whose retry is due, by id after `afterId`. */
export async function dueSubscriptionIds(db: Db, now: number, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('subscription')
    .select('id')
    .where('id', '>', afterId)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['TRIAL', 'ACTIVE']), eb('period_end', '<=', now)]),
        eb.and([eb('status', '=', 'FAILED'), eb('next_attempt_at', '<=', now)]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => Number(row.id));
}

/**
 * The subscriptions that renew with card `cardId`: live past a first month (TRIAL, ACTIVE, FAILED retrying), not
 * cancelled at their period's end. Those a chargeback that retires the card tells (billing.apply.ts). A client has
 * one live subscription per kind of plan, so a card has a handful at most; bounded all the same.
 */
export async function renewingSubscriptionsOfCard(db: Db, cardId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('subscription')
    .select('id')
    .where('card_id', '=', cardId)
    .where('status', 'in', ['TRIAL', 'ACTIVE', 'FAILED'])
    .where('cancel_at_period_end', '=', false)
    .orderBy('id')
    .limit(100)
    .execute();
  return rows.map((row) => Number(row.id));
}
