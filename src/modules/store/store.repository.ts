import type { Selectable, Updateable } from 'kysely';
import type { Db, DatabaseHandle } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { WebStoreTable } from './store.tables.js';

export type WebStoreRow = Selectable<WebStoreTable>;

export function findStore(db: Db, code: string): Promise<WebStoreRow | undefined> {
  return db.selectFrom('web_store').selectAll().where('code', '=', code).executeTakeFirst();
}

/** findStore for the hot path (every store-scoped request), prepared once per database handle. */
export function preparedFindStore(database: DatabaseHandle): (code: string) => Promise<WebStoreRow[]> {
  return preparedQuery(database, (db, code: string) => db.selectFrom('web_store').selectAll().where('code', '=', code));
}

export function listStores(db: Db): Promise<WebStoreRow[]> {
  return db.selectFrom('web_store').selectAll().orderBy('code').execute();
}

/** Returns whether a store with that code exists (and so was updated). */
export async function updateStore(
  db: Db,
  code: string,
  changes: Omit<Updateable<WebStoreTable>, 'code' | 'updated_at'>,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('web_store')
    .set({ ...changes, updated_at: now })
    .where('code', '=', code)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
