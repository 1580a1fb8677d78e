import type { Db } from '../../db/database.js';

export interface ApiKeyRow {
  id: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export async function insertApiKey(db: Db, name: string, keyHash: string, now: number): Promise<void> {
  await db.insertInto('api_key').values({ name, key_hash: keyHash, created_at: now }).execute();
}

export async function findApiKeyByName(db: Db, name: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_key')
    .select(['id', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_key')
    .select(['id', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function allApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_key').select(['id', 'name', 'created_at', 'last_used_at', 'revoked_at']).orderBy('name').execute();
}

export async function markApiKeyUsed(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('api_key').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Whether a key was revoked now (false when it was revoked before). */
export async function revokeApiKey(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_key')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
