import type { Db } from '../../db/database.js';

// The SQL of redirects: the lookup of an old path, and the rows the admin reads and writes.

export async function activeRedirect(db: Db, store: string, path: string) {
  return db
    .selectFrom('redirect')
    .select(['id', 'code', 'path', 'target', 'status'])
    .where('store_code', '=', store)
    .where('path', '=', path)
    .where('is_active', '=', true)
    .executeTakeFirst();
}

export async function redirectByCode(db: Db, code: string) {
  return db.selectFrom('redirect').selectAll().where('code', '=', code).executeTakeFirst();
}
