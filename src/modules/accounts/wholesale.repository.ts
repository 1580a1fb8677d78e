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

/**
 * The erasure's part of the requests made with the contact's email: each is emptied (the email the
 * erased placeholder, the form `{}`), and one still pending is closed as ERASED: left pending, it was
 * listed for the back office with nothing to decide on and refused only when an operator tried to.
 * Run under the contact's locks (modules/gdpr), which an approval takes before its decision; a
 * rejection that decided first keeps its decision, one that comes after finds the request closed.
 */
export async function eraseWholesaleRequests(db: Db, email: string, erasedEmail: string, now: number): Promise<void> {
  await db
    .updateTable('wholesale_request')
    .set({ status: 'ERASED', decided_at: now })
    .where('email', '=', email)
    .where('status', '=', 'PENDING')
    .execute();
  await db.updateTable('wholesale_request').set({ email: erasedEmail, form: '{}' }).where('email', '=', email).execute();
}

export async function setWholesaleRequestAccount(db: Db, id: number, clientAccountId: number): Promise<void> {
  await db.updateTable('wholesale_request').set({ client_account_id: clientAccountId }).where('id', '=', id).execute();
}
