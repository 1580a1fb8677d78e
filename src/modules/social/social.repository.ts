import type { Insertable } from 'kysely';
import type { AuthRecordTable, OauthTransactionTable, SocialProvider } from './social.tables.js';
import type { Db } from '../../db/database.js';

export function insertTransaction(db: Db, row: Insertable<OauthTransactionTable>) {
  return db.insertInto('oauth_transaction').values(row).execute();
}

/** Takes a redirect flow's transaction out: it can be used once. */
export function takeTransaction(db: Db, stateHash: string, now: number) {
  return db
    .deleteFrom('oauth_transaction')
    .where('state_hash', '=', stateHash)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

export function findIdentity(db: Db, provider: SocialProvider, subject: string) {
  return db.selectFrom('social_identity').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
}

export function insertIdentity(
  db: Db,
  identity: { provider: SocialProvider; subject: string; userId: number; email: string | null },
  now: number,
) {
  return db
    .insertInto('social_identity')
    .values({ provider: identity.provider, subject: identity.subject, user_id: identity.userId, email: identity.email, created_at: now })
    .execute();
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
