import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { normaliseBasket, type BasketRow } from './basket.repository.js';

// The basket reminders' SQL (basket-reminders.ts): the scan's keyset walk over due client baskets,
// the claim of one basket and of its person's 7-day throttle, and the facts the mail is made of.

/** A basket the scan may remind of, and whose it is. */
export interface DueBasket {
  id: number;
  version: number;
  updatedAt: number;
  clientAccountId: number;
  userId: number;
}

/** Where the last page ended: the walk's order is (updated_at, id). */
export interface DueCursor {
  updatedAt: number;
  id: number;
}

/**
 * Client baskets with lines, last changed in (`changedAfter`, `changedBy`], not reminded for their
 * version, in order of their last change after `cursor`: a range of basket_reminder_due_idx (its
 * condition written as the index's). Left out with the same look-ups: accounts not ACTIVE, users
 * without the newsletter flag (the first half of the EMAIL consent; profile's rule decides at the
 * claim) and people reminded since `throttledSince`.
 */
export async function dueBaskets(
  db: Db,
  window: { changedAfter: number; changedBy: number; throttledSince: number },
  cursor: DueCursor | undefined,
  limit: number,
): Promise<DueBasket[]> {
  // Cross joins: SQLite then walks the baskets first, in the index's order (it otherwise starts from
  // the accounts and sorts); PostgreSQL plans them as inner joins.
  let query = db
    .selectFrom('basket as b')
    .crossJoin('client_account as ca')
    .crossJoin('app_user as u')
    .select(['b.id', 'b.version', 'b.updated_at', 'b.client_account_id', 'ca.user_id'])
    .whereRef('ca.id', '=', 'b.client_account_id')
    .whereRef('u.id', '=', 'ca.user_id')
    .where('b.client_account_id', 'is not', null)
    .where(sql<boolean>`b.reminded_version <> b.version`)
    .where('b.updated_at', '>', window.changedAfter)
    .where('b.updated_at', '<=', window.changedBy)
    .where('ca.status', '=', 'ACTIVE')
    .where('u.newsletter', '=', sql.lit(true))
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('basket_line as bl').select(sql.lit(1).as('one')).whereRef('bl.basket_id', '=', 'b.id')),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('basket_reminder_recipient as r')
            .select(sql.lit(1).as('one'))
            .whereRef('r.user_id', '=', 'ca.user_id')
            .where('r.reminded_at', '>', window.throttledSince),
        ),
      ),
    );
  if (cursor) {
    query = query.where((eb) => eb(eb.refTuple('b.updated_at', 'b.id'), '>', eb.tuple(cursor.updatedAt, cursor.id)));
  }
  const rows = await query.orderBy('b.updated_at').orderBy('b.id').limit(limit).execute();
  return rows.map((row) => ({
    id: Number(row.id),
    version: row.version,
    updatedAt: Number(row.updated_at),
    clientAccountId: Number(row.client_account_id),
    userId: Number(row.user_id),
  }));
}

/**
 * Claims the basket's reminder for the version the scan read: false when a write moved the version
 * on since, or another scan claimed it first (it waits for that scan's row lock on PostgreSQL and
 * then finds the version reminded). The version and time of change stay as they are: a reminder is
 * no change of the basket (its ETag, If-Match).
 */
export async function claimBasketVersion(trx: Db, basket: { id: number; version: number }): Promise<boolean> {
  const result = await trx
    .updateTable('basket')
    .set({ reminded_version: basket.version })
    .where('id', '=', basket.id)
    .where('version', '=', basket.version)
    .where('reminded_version', '<>', basket.version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Takes the person's reminder for now unless one was taken since `throttledSince`: one upsert,
 * whose conflict waits for another scan's uncommitted claim of the same person (PostgreSQL) and then
 * sees its time. False when throttled.
 */
export async function claimRecipient(trx: Db, userId: number, now: number, throttledSince: number): Promise<boolean> {
  const row = await trx
    .insertInto('basket_reminder_recipient')
    .values({ user_id: userId, reminded_at: now })
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet({ reminded_at: now }).where('basket_reminder_recipient.reminded_at', '<=', throttledSince),
    )
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The basket by id as the pricing reads it, with its account's status and the user's language. */
export async function reminderFacts(db: Db, basketId: number) {
  const row = await db
    .selectFrom('basket as b')
    .innerJoin('client_account as ca', 'ca.id', 'b.client_account_id')
    .innerJoin('app_user as u', 'u.id', 'ca.user_id')
    .selectAll('b')
    .select(['ca.status as account_status', 'u.language as user_language'])
    .where('b.id', '=', basketId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { account_status, user_language, ...basket } = row;
  return {
    basket: normaliseBasket(basket) as BasketRow & { client_account_id: number },
    account: { status: account_status },
    language: user_language,
  };
}

/** The person's last basket reminder, for "your data"; undefined when there is none. */
export async function lastReminderOf(db: Db, userId: number): Promise<number | undefined> {
  const row = await db.selectFrom('basket_reminder_recipient').select('reminded_at').where('user_id', '=', userId).executeTakeFirst();
  return row && Number(row.reminded_at);
}

export async function deleteReminderRecipient(trx: Db, userId: number): Promise<void> {
  await trx.deleteFrom('basket_reminder_recipient').where('user_id', '=', userId).execute();
}

/** The hourly maintenance's: people whose last reminder no longer throttles anything (`throttledSince` and before). */
export function pruneReminderRecipients(db: Db, throttledSince: number): Promise<number> {
  return deleteInBatches(db, 'basket_reminder_recipient', {
    key: 'user_id',
    where: (eb) => eb('reminded_at', '<=', throttledSince),
    orderBy: 'reminded_at',
  });
}
