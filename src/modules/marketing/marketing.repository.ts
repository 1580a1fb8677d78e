import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { isPostgres } from '../../db/row-lock.js';
import { isErasedEmail } from '../../infra/personal-data.js';

/** Whether the user is gone: erased (their email the placeholder) or no longer there. */
export async function isUserErased(db: Db, userId: number): Promise<boolean> {
  const user = await db.selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirst();
  return user === undefined || isErasedEmail(user.email);
}

/**
 * The jobs of `type` (the CompleteRegistration job's) that carry this user id, by the partial index of
 * migration 2026_12_08_1050: its expression and its type written as the index has them (a literal, not
 * a bound value, so each engine's planner matches the index's condition).
 */
export function jobsOfUser(db: Db, type: string, userId: number) {
  const user = isPostgres(db)
    ? sql<boolean>`(payload::jsonb ->> 'userId') = ${String(userId)}`
    : sql<boolean>`json_extract(payload, '$.userId') = ${userId}`;
  return db
    .selectFrom('job')
    .select(['id', 'payload', 'status', 'created_at'])
    .where(sql<boolean>`type = ${sql.lit(type)}`)
    .where(user)
    .orderBy('id')
    .execute();
}
