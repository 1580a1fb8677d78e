import { sql, type Kysely } from 'kysely';

// A shopper who types a whole title expects that product first: relevance puts a product whose title
// is exactly the text (folded alike) above the rest of its availability class (src/modules/search).
// Folding is the application's (query-text.ts), which SQL cannot repeat on either engine, so each
// product's folded title is kept beside its search columns, `title_key`, written when its document is
// folded, and looked up by an index: the titles typed exactly are read as a few entries of it, not
// compared with every match.
//
// Every product before this gets its key here from the name search_product mirrors, folded by the rule as
// it is at this migration (written here, not imported: a migration stays what it was), a batch of rows at
// a time; a key past 400 characters (twice the 200 a typed text is cut to) is kept empty, as the fold
// keeps it: no typed text reaches it, and PostgreSQL's b-tree entries are limited.

const BATCH = 1000;
const MAX_KEY_CHARS = 400;

const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ħ: 'h' };
const SPECIAL = /[ßæœøđðþłıħ]/g;
const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** The folded terms of a title joined by single spaces, or '' past MAX_KEY_CHARS. */
function titleKey(title: string): string {
  const folded = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(SPECIAL, (letter) => LETTERS[letter] ?? letter);
  const key = folded
    .split(SEPARATORS)
    .filter((term) => term.length > 0)
    .join(' ');
  return key.length <= MAX_KEY_CHARS ? key : '';
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('search_product')
    .addColumn('title_key', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('search_product_title_key_idx').on('search_product').column('title_key').execute();
  for (let after = 0; ;) {
    const rows = await db.selectFrom('search_product').select(['id', 'name']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) break;
    const keyed = rows.map((row) => ({ id: Number(row.id), key: titleKey(row.name) })).filter((row) => row.key !== '');
    if (keyed.length > 0) {
      const values = keyed.map((row) => sql`(cast(${row.id} as bigint), ${row.key})`);
      await sql`with k (id, title_key) as (values ${sql.join(values)})
        update search_product set title_key = k.title_key from k where search_product.id = k.id`.execute(db);
    }
    after = Number(rows.at(-1)!.id);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('search_product_title_key_idx').execute();
  await db.schema.alterTable('search_product').dropColumn('title_key').execute();
}
