import { sql, type RawBuilder, type SqlBool } from 'kysely';

// What the public sees of operator-written content (pages, banners, menus, blog posts, news): an
// active item inside its optional window [visible_from, visible_to). The one rule, in JavaScript
// for rows already read and in SQL for lists; an operator's preview skips it.

export interface PublishedFacts {
  is_active: boolean | number;
  visible_from: number | string | null;
  visible_to: number | string | null;
}

export function isPublishedAt(item: PublishedFacts, now: number): boolean {
  if (!item.is_active) return false;
  if (item.visible_from !== null && Number(item.visible_from) > now) return false;
  return item.visible_to === null || Number(item.visible_to) > now;
}

/** The same rule as a SQL condition on the columns of `table` (a table name or alias). */
export function publishedAt(table: string, now: number): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return sql<SqlBool>`(${column('is_active')} = ${true} and (${column('visible_from')} is null or ${column('visible_from')} <= ${now}) and (${column('visible_to')} is null or ${column('visible_to')} > ${now}))`;
}
