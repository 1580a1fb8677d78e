import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { PublishedColumns } from './blog.tables.js';

// When a blog post or news item is public: active, and `now` inside its optional window (from
// inclusive, to exclusive). Drafts (inactive) and items outside their window are invisible to the
// public; an operator previews them (`?preview=1` with an operator API key), which skips the rule.
// The content-pages module has the same rule for its items; the two are to be unified.

/** Who is reading: the public (the rule applies) or an operator's preview (everything shows). */
export type ReadMode = 'public' | 'preview';

export function isPublishedAt(item: Pick<PublishedColumns, 'is_active' | 'visible_from' | 'visible_to'>, now: number): boolean {
  return (
    Boolean(item.is_active) &&
    (item.visible_from === null || item.visible_from <= now) &&
    (item.visible_to === null || item.visible_to > now)
  );
}

/** The same rule as a SQL condition on the columns of `table` (a name or alias of a published table). */
export function publishedAt(table: string, now: number): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return sql<SqlBool>`(${column('is_active')} = ${true} and (${column('visible_from')} is null or ${column('visible_from')} <= ${now}) and (${column('visible_to')} is null or ${column('visible_to')} > ${now}))`;
}
