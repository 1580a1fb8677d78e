import type { Insertable, Transaction } from 'kysely';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';

// Writing the module's coded records (imports and admin edits): upsert by code, writing only
// what differs, so a repeated import line is `unchanged` and leaves updated_at alone.

export type Trx = Transaction<Database>;
export type Outcome = 'created' | 'updated' | 'unchanged';
export type CodedTable = 'blog_category' | 'blog_post' | 'news' | 'redirect';
export type Columns<T extends CodedTable> = Omit<
  Insertable<Database[T]>,
  'id' | 'code' | 'created_at' | 'updated_at' | 'hits' | 'last_hit_at'
>;

type AnyTrx = Transaction<Record<string, Record<string, unknown>>>;
const loose = (trx: Trx) => trx as unknown as AnyTrx;

/** Booleans come back as 0/1 from SQLite; compares the stored value with the wanted one. */
function same(stored: unknown, wanted: unknown): boolean {
  if (typeof wanted === 'boolean') return Boolean(stored) === wanted;
  return (stored ?? null) === (wanted ?? null);
}

/**
 * Inserts or updates the record with this code; `children` replaces its child rows (names,
 * tags, translations) and says whether it changed any. An existing record is locked first
 * (PostgreSQL): two writes of one record at once read its child rows one after the other, where
 * both read them before either wrote and a post kept both writes' tags.
 */
export async function upsertCoded<T extends CodedTable>(
  trx: Trx,
  table: T,
  code: string,
  wanted: Columns<T>,
  now: number,
  children: (id: number) => Promise<boolean> = async () => false,
): Promise<{ id: number; outcome: Outcome }> {
  const db = loose(trx);
  const stored = await lockedOnPostgres(trx, db.selectFrom(table).selectAll().where('code', '=', code), 'no key update').executeTakeFirst();
  if (!stored) {
    const row = await db
      .insertInto(table)
      .values({ ...wanted, code, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await children(Number(row.id));
    return { id: Number(row.id), outcome: 'created' };
  }
  const id = Number(stored.id);
  const changed = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => !same(stored[key], value)));
  const childrenChanged = await children(id);
  if (Object.keys(changed).length === 0 && !childrenChanged) return { id, outcome: 'unchanged' };
  await db
    .updateTable(table as string)
    .set({ ...changed, updated_at: now })
    .where('id', '=', id)
    .execute();
  return { id, outcome: 'updated' };
}

/** Replaces an owner's child rows when they differ from `wanted` (compared as sorted JSON). */
export async function replaceChildren<R extends Record<string, unknown>>(
  trx: Trx,
  table: 'blog_category_name' | 'blog_post_tag' | 'news_translation',
  owner: string,
  id: number,
  wanted: R[],
): Promise<boolean> {
  const db = loose(trx);
  const stored = await db.selectFrom(table).selectAll().where(owner, '=', id).execute();
  const canonical = (rows: Array<Record<string, unknown>>) =>
    rows
      .map((row) =>
        JSON.stringify(
          Object.entries(row)
            .filter(([key]) => key !== owner)
            .map(([key, value]) => [key, value ?? null])
            .sort(([a], [b]) => String(a).localeCompare(String(b))),
        ),
      )
      .sort()
      .join('\n');
  if (canonical(stored) === canonical(wanted)) return false;
  await db.deleteFrom(table).where(owner, '=', id).execute();
  if (wanted.length > 0)
    await db
      .insertInto(table)
      .values(wanted.map((row) => ({ ...row, [owner]: id })))
      .execute();
  return true;
}

/** Whether another record of the store has this slug (slugs are unique per store). */
export async function slugTaken(
  trx: Trx,
  table: 'blog_category' | 'blog_post' | 'news',
  store: string,
  slug: string,
  code: string,
): Promise<string | undefined> {
  const row = await loose(trx)
    .selectFrom(table)
    .select('code')
    .where('store_code', '=', store)
    .where('slug', '=', slug)
    .where('code', '<>', code)
    .executeTakeFirst();
  return row ? String(row.code) : undefined;
}
