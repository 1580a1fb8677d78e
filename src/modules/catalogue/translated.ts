import { sql, type Nullable, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Language } from '../../i18n/index.js';

// Translated names of catalogue things. Translations may lag behind the back office; Estonian is
// always there, so every answer falls back to it, and to the code when even that is missing.

/** Translation tables and the column that names their owner. */
const OWNER_COLUMNS = {
  category_name: 'category_id',
  campaign_name: 'campaign_id',
  product_list_name: 'product_list_id',
  shop_name: 'shop_id',
} as const;

type TranslationTable = keyof typeof OWNER_COLUMNS;
type Translation<T extends TranslationTable> = Omit<Database[T], 'language' | (typeof OWNER_COLUMNS)[T]>;

/** What the joins add: the translation rows, null where there is none. */
type Translations<T extends TranslationTable> = { asked: Nullable<Translation<T>>; et: Nullable<Translation<T>> };

/**
 * Left-joins the owner's translation in the asked language as `asked` and the Estonian one as
 * `et` (each at most one row: the translation tables are keyed by owner and language). `ownerId`
 * is the owner's id column, e.g. `c.id`; identifiers come from code, the language is bound.
 */
export function withTranslations<DB, TB extends keyof DB, O, T extends TranslationTable>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: T,
  ownerId: string,
  language: Language,
): SelectQueryBuilder<DB & Translations<T>, TB | 'asked' | 'et', O> {
  const join = <A extends 'asked' | 'et'>(alias: A, code: string) =>
    [
      sql<object>`${sql.table(table)}`.as(alias),
      sql<boolean>`${sql.ref(`${alias}.${OWNER_COLUMNS[table]}`)} = ${sql.ref(ownerId)} and ${sql.ref(`${alias}.language`)} = ${code}`,
    ] as const;
  const [asked, askedOn] = join('asked', language);
  const [et, etOn] = join('et', 'et');
  // Kysely cannot type joins on a query of any schema and table: the return type says what they add.
  const loose = query as unknown as SelectQueryBuilder<Database, never, O>;
  const joined = loose.leftJoin(asked, (on) => on.on(askedOn)).leftJoin(et, (on) => on.on(etOn));
  return joined as unknown as SelectQueryBuilder<DB & Translations<T>, TB | 'asked' | 'et', O>;
}

/** The name in the asked language, else the Estonian one, else the code (select `asked.name as name`, `et.name as et_name`). */
export function translatedName(row: { code: string; name: string | null; et_name: string | null }): string {
  return row.name ?? row.et_name ?? row.code;
}
