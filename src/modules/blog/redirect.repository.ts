import type { Db } from '../../db/database.js';

// The SQL of redirects: the lookup of an old path, and the rows the admin reads and writes.

/** The store's active redirect of the first of `paths` (spellings of one path, redirect-path.ts) that has one. */
export async function activeRedirect(db: Db, store: string, paths: string[]) {
  const rows = await db
    .selectFrom('redirect')
    .select(['id', 'code', 'path', 'target', 'status'])
    .where('store_code', '=', store)
    .where('path', 'in', paths)
    .where('is_active', '=', true)
    .execute();
  return paths.map((path) => rows.find((row) => row.path === path)).find((row) => row !== undefined);
}

export async function redirectByCode(db: Db, code: string) {
  return db.selectFrom('redirect').selectAll().where('code', '=', code).executeTakeFirst();
}

/** The store's front-end URL, which a path target is answered after (a full URL target may be on it too). */
export async function storeFrontendUrl(db: Db, store: string): Promise<string | undefined> {
  return (await db.selectFrom('web_store').select('frontend_url').where('code', '=', store).executeTakeFirst())?.frontend_url;
}
