import { sql, type Kysely } from 'kysely';

// A redirect's old path is now stored, and looked up, with its percent escapes in upper case
// (modules/blog/redirect-path.ts normalisePath): `%c3%a4` and `%C3%A4` are one escape (RFC 3986
// 2.1), and a path imported in lower case was found by that spelling only, not raw (`/ä`) nor as a
// browser's location gives it (upper case). This writes the rows stored before in that form. A row
// whose upper-case form another redirect of its store already has stays as it is: that other one is
// what a lookup of either spelling finds (the import refuses such a pair now). The rule is copied
// here: a migration keeps the form it wrote, whatever the module's code becomes.

const BATCH = 500;

const upperCaseEscapes = (path: string) => path.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());

export async function up(db: Kysely<any>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: Array<{ id: number | string; store_code: string; path: string }> = await db
      .selectFrom('redirect')
      .select(['id', 'store_code', 'path'])
      .where('id', '>', after)
      .where(sql<boolean>`path like '%!%%' escape '!'`)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const path = upperCaseEscapes(row.path);
      if (path === row.path) continue;
      const taken = await db
        .selectFrom('redirect')
        .select('id')
        .where('store_code', '=', row.store_code)
        .where('path', '=', path)
        .executeTakeFirst();
      if (taken === undefined) await db.updateTable('redirect').set({ path }).where('id', '=', row.id).execute();
    }
    after = Number(rows.at(-1)!.id);
  }
}

// The lower-case spellings are not kept: an upper-case one finds the redirect either way.
export async function down(): Promise<void> {}
