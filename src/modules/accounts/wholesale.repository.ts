import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
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
 * The requests that are the person's: made with their email, or approved into an account of theirs
 * (`clientAccountIds`; the email it was made with may since have been changed away from).
 */
export function wholesaleRequestsOf(db: Db, person: WholesaleApplicant) {
  return db.selectFrom('wholesale_request').where(theirs(person));
}

type WholesaleApplicant = { email: string; clientAccountIds: number[] };

const theirs = (person: WholesaleApplicant) => (eb: ExpressionBuilder<Database, 'wholesale_request'>) =>
  person.clientAccountIds.length === 0
    ? eb('email', '=', person.email)
    : eb.or([eb('email', '=', person.email), eb('client_account_id', 'in', person.clientAccountIds)]);

/**
 * The erasure's part of the person's requests (wholesaleRequestsOf): each is emptied (the email the
 * erased placeholder, the form `{}`), and one still pending is closed as ERASED: left pending, it was
 * listed for the back office with nothing to decide on and refused only when an operator tried to.
 * Run under the contact's locks (modules/gdpr), which an approval takes before its decision; a
 * rejection that decided first keeps its decision, one that comes after finds the request closed.
 */
export async function eraseWholesaleRequests(db: Db, person: WholesaleApplicant, erasedEmail: string, now: number): Promise<void> {
  // Two updates, no read first: the table is written whether or not the person has any, where the
  // erasure's concurrency tests (test/concurrency) hold it to meet the erasure holding the person.
  await db
    .updateTable('wholesale_request')
    .set({ status: 'ERASED', decided_at: now })
    .where(theirs(person))
    .where('status', '=', 'PENDING')
    .execute();
  await db.updateTable('wholesale_request').set({ email: erasedEmail, form: '{}' }).where(theirs(person)).execute();
}

export async function setWholesaleRequestAccount(db: Db, id: number, clientAccountId: number): Promise<void> {
  await db.updateTable('wholesale_request').set({ client_account_id: clientAccountId }).where('id', '=', id).execute();
}
