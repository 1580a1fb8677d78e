import { sql, type Kysely } from 'kysely';

// A redirect's old path is now stored, and looked up, with its percent escapes in upper case
// (modules/blog/redirect-path.ts normalisePath): `%c3%a4` and `%C3%A4` are one escape (RFC 3986
// 2.1), and a path imported in lower case was found by that spelling only, not raw (`/ä`) nor as a
// browser's location gives it (upper case). This writes the rows stored before in that form.
// A row another redirect of its store already holds a spelling of (upper case, or raw: what a
// lookup of the upper case also finds) stays as it is when that other one is active: it is what a
// browser's and a typed link's lookup found before, and still finds (the import refuses such a pair
// now). Where the others are all inactive the row takes the upper case (an inactive row holding it
// takes the row's spelling): it was the one redirect of that old URL that answered, and a lookup
// of its spelling, a printed QR code's among them, must not become a 404. The rules are copied
// here: a migration keeps the form it wrote, whatever the module's code becomes.

const BATCH = 500;

const upperCaseEscapes = (path: string) => path.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Escaped characters outside ASCII written as themselves; an ASCII escape, and a run that is not UTF-8, stay. */
function decodedOutsideAscii(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    let decoded: string;
    try {
      decoded = UTF8.decode(Buffer.from(run.replace(/%/g, ''), 'hex'));
    } catch {
      return run;
    }
    let out = '';
    let at = 0;
    for (const char of decoded) {
      const escapes = Buffer.byteLength(char) * 3;
      out += char.codePointAt(0)! < 0x80 ? run.slice(at, at + escapes) : char;
      at += escapes;
    }
    return out;
  });
}

const encodedOutsideAscii = (text: string) =>
  text.replace(/[^\p{ASCII}]/gu, (char) => (/\p{Surrogate}/u.test(char) ? char : encodeURIComponent(char)));

/** What a lookup of `path` finds: the path, raw, and raw encoded again. */
const spellings = (path: string) => [...new Set([path, decodedOutsideAscii(path), encodedOutsideAscii(decodedOutsideAscii(path))])];

export async function up(db: Kysely<any>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: Array<{ id: number | string; store_code: string; path: string; is_active: unknown }> = await db
      .selectFrom('redirect')
      .select(['id', 'store_code', 'path', 'is_active'])
      .where('id', '>', after)
      .where(sql<boolean>`path like '%!%%' escape '!'`)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const path = upperCaseEscapes(row.path);
      if (path === row.path) continue;
      const others: Array<{ id: number | string; path: string; is_active: unknown }> = await db
        .selectFrom('redirect')
        .select(['id', 'path', 'is_active'])
        .where('store_code', '=', row.store_code)
        .where('path', 'in', spellings(path))
        .where('id', '<>', row.id)
        .execute();
      if (others.some((other) => Boolean(other.is_active)) || (others.length > 0 && !row.is_active)) continue;
      const holder = others.find((other) => other.path === path);
      if (holder !== undefined) {
        // The paths change places through one no stored path has (they start with `/`): (store, path) is unique.
        await db
          .updateTable('redirect')
          .set({ path: `#${row.id}` })
          .where('id', '=', row.id)
          .execute();
        await db.updateTable('redirect').set({ path: row.path }).where('id', '=', holder.id).execute();
      }
      await db.updateTable('redirect').set({ path }).where('id', '=', row.id).execute();
    }
    after = Number(rows.at(-1)!.id);
  }
}

// The lower-case spellings are not kept: an upper-case one finds the redirect either way.
export async function down(): Promise<void> {}
