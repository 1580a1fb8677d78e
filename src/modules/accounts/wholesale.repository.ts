import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { WholesaleRequestTable } from './accounts.tables.js';

export type WholesaleRequestRow = Selectable<WholesaleRequestTable>;

export async function insertWholesaleRequest(db: Db, request: Insertable<WholesaleRequestTable>): Promise<number> {
  const row = await db.insertInto('wholesale_request').values(request).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export function findWholesaleRequest(db: Db, id: number): Promise<WholesaleRequestRow | undefined> {
  return db.selectFrom('wholesale_request').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listPendingWholesaleRequests(db: Db, limit: number): Promise<WholesaleRequestRow[]> {
  return db.selectFrom('wholesale_request').selectAll().where('status', '=', 'PENDING').orderBy('id').limit(limit).execute();
}

/**
 * Records the decision on the request as it was read (pending, its contact's email the one read):
 * false when another operator decided first or the contact's erasure emptied it meanwhile.
 */
export async function decideWholesaleRequest(
  db: Db,
  request: Pick<WholesaleRequestRow, 'id' | 'email'>,
  status: 'APPROVED' | 'REJECTED',
  now: number,
): Promise<boolean> {
  const decided = await db
    .updateTable('wholesale_request')
    .set({ status, decided_at: now })
    .where('id', '=', request.id)
    .where('status', '=', 'PENDING')
    .where('email', '=', request.email)
    .executeTakeFirst();
  return decided.numUpdatedRows > 0n;
}

export async function setWholesaleRequestAccount(db: Db, id: number, clientAccountId: number): Promise<void> {
  await db.updateTable('wholesale_request').set({ client_account_id: clientAccountId }).where('id', '=', id).execute();
}
