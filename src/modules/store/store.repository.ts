import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, WebStoreTable } from '../../db/schema.js';

export type WebStoreRow = Selectable<WebStoreTable>;

export function findStore(db: Kysely<Database>, code: string): Promise<WebStoreRow | undefined> {
  return db.selectFrom('web_store').selectAll().where('code', '=', code).executeTakeFirst();
}

export function listStores(db: Kysely<Database>): Promise<WebStoreRow[]> {
  return db.selectFrom('web_store').selectAll().orderBy('code').execute();
}

/** Returns whether a store with that code exists (and so was updated). */
export async function updateStore(
  db: Kysely<Database>,
  code: string,
  changes: Omit<Updateable<WebStoreTable>, 'code' | 'updated_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('web_store')
    .set({ ...changes, updated_at: Date.now() })
    .where('code', '=', code)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
