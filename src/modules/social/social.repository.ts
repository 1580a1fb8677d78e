import type { Insertable } from 'kysely';
import type { AuthRecordTable, OauthTransactionTable, SocialProvider, UsedIdTokenTable } from './social.tables.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { emailOrNull } from './providers.js';
import type { Db } from '../../db/database.js';

export function insertTransaction(db: Db, row: Insertable<OauthTransactionTable>) {
  return db.insertInto('oauth_transaction').values(row).execute();
}

/**
 * Takes a redirect flow's transaction out, only for the browser that started it (the hash of its
 * flow cookie): it can be used once. Another browser takes nothing and deletes nothing.
 */
export function takeTransaction(db: Db, stateHash: string, browserHash: string, now: number) {
  return db
    .deleteFrom('oauth_transaction')
    .where('state_hash', '=', stateHash)
    .where('browser_hash', '=', browserHash)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Whether a flow with this state is under way (whichever browser started it). */
export async function isLiveTransaction(db: Db, stateHash: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_transaction')
    .select('state_hash')
    .where('state_hash', '=', stateHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

/** Keeps a form-POST callback until the browser comes back with its cookie; the first one only. */
export async function stashCallbackForm(db: Db, stateHash: string, form: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_transaction')
    .set({ callback_form: form })
    .where('state_hash', '=', stateHash)
    .where('expires_at', '>', now)
    .where('callback_form', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function findIdentity(db: Db, provider: SocialProvider, subject: string) {
  return db.selectFrom('social_identity').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
}

/** What the provider said of an identity's email: the address as every address is stored, and whether it vouched for it (never for none). */
export function identityEmailColumns(identity: { email: string | null; emailVerified: boolean }): {
  email: string | null;
  email_verified: boolean;
} {
  const email = emailOrNull(identity.email);
  return { email, email_verified: email !== null && identity.emailVerified };
}

export function insertIdentity(
  db: Db,
  identity: { provider: SocialProvider; subject: string; userId: number; email: string | null; emailVerified: boolean },
  now: number,
) {
  return db
    .insertInto('social_identity')
    .values({
      provider: identity.provider,
      subject: identity.subject,
      user_id: identity.userId,
      ...identityEmailColumns(identity),
      created_at: now,
    })
    .execute();
}

/** Keeps what the provider says now of a linked identity's email (the address and whether it vouched for it). */
export async function updateIdentityEmail(db: Db, id: number, columns: { email: string | null; email_verified: boolean }): Promise<void> {
  await db.updateTable('social_identity').set(columns).where('id', '=', id).execute();
}

/** Unlinks every identity of the user (someone who proved the login email takes the account over). */
export async function deleteIdentitiesOfUser(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('social_identity').where('user_id', '=', userId).execute();
}

export function insertAuthRecord(db: Db, row: Insertable<AuthRecordTable>) {
  return db.insertInto('auth_record').values(row).execute();
}

export function findUsableAuthRecord(db: Db, idHash: string, now: number) {
  return db
    .selectFrom('auth_record')
    .selectAll()
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .where('used_at', 'is', null)
    .executeTakeFirst();
}

/** Marks the record used; false when another request used it first. */
export async function consumeAuthRecord(db: Db, idHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('auth_record')
    .set({ used_at: now })
    .where('id_hash', '=', idHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records that an ID token was used; false when it was used before (also by a request running at the same time). */
export async function recordIdTokenUse(db: Db, row: UsedIdTokenTable): Promise<boolean> {
  const result = await db
    .insertInto('used_id_token')
    .values(row)
    .onConflict((conflict) => conflict.column('token_key').doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Deletes expired sign-in flows and authentication records. */
export async function pruneExpiredSignIns(db: Db, now: number): Promise<number> {
  const flows = await deleteInBatches(db, 'oauth_transaction', {
    key: 'state_hash',
    where: (eb) => eb('expires_at', '<=', now),
    orderBy: 'expires_at',
  });
  const records = await deleteInBatches(db, 'auth_record', {
    key: 'id_hash',
    where: (eb) => eb('expires_at', '<=', now),
    orderBy: 'expires_at',
  });
  return flows + records;
}

/** Forgets ID tokens that have expired: the providers' signature checks refuse them by now. */
export async function pruneUsedIdTokens(db: Db, now: number): Promise<number> {
  return deleteInBatches(db, 'used_id_token', {
    key: 'token_key',
    where: (eb) => eb('expires_at', '<=', now),
    orderBy: 'expires_at',
  });
}
