import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

// When a public read of posts or news changes by itself: the next start or end of a window among
// the items it weighs. Read beside the answer (by the same (store, ...) indexes as its count), so
// the answer is not kept past it.

export interface WindowScope {
  table: 'blog_post' | 'news';
  store: string;
  now: number;
  /** Posts of one language (a list of posts). */
  language?: string;
  /** One item (a post or news item by its slug). */
  slug?: string;
}

/** The first instant after `now` at which an active item of the scope comes into or goes out of its window; Infinity: none. */
export async function nextWindowEdge(db: Db, { table, store, now, language, slug }: WindowScope): Promise<number> {
  const scope = sql.join(
    [
      sql`store_code = ${store}`,
      sql`is_active = ${true}`,
      ...(language === undefined ? [] : [sql`language = ${language}`]),
      ...(slug === undefined ? [] : [sql`slug = ${slug}`]),
    ],
    sql` and `,
  );
  const { rows } = await sql<{ starts: number | string | null; ends: number | string | null }>`select
      min(case when visible_from > ${now} then visible_from end) as starts,
      min(case when visible_to > ${now} then visible_to end) as ends
    from ${sql.table(table)} where ${scope}`.execute(db);
  const edges = [rows[0]?.starts, rows[0]?.ends].filter((edge) => edge !== null && edge !== undefined).map(Number);
  return Math.min(Infinity, ...edges);
}
