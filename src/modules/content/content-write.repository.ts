import type { Kysely } from 'kysely';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';

// The content module's writes: upsert by code (reporting whether anything changed, so a re-import
// is idempotent and leaves updated_at alone), a block page's blocks replaced whole, delete by code.

export type CodedTable = 'content_page' | 'block_page' | 'banner' | 'menu';
export type Column = string | number | boolean | null;
export type Outcome = 'created' | 'updated' | 'unchanged';

/** A stored value as written: SQLite hands booleans back as 0/1 and PostgreSQL int8 as strings. */
function same(stored: unknown, wanted: Column): boolean {
  if (typeof wanted === 'boolean') return Boolean(stored) === wanted;
  if (typeof wanted === 'number') return stored !== null && Number(stored) === wanted;
  return stored === wanted;
}

/**
 * Inserts or updates the row with this code. `children` replaces what hangs off the row and says
 * whether that changed; the row's updated_at moves only when something did. An existing row is
 * locked first (PostgreSQL): two writes of one item at once read its children one after the other,
 * where both read them before either wrote and a page kept both writes' blocks.
 */
export async function upsertByCode(
  trx: Kysely<Database>,
  table: CodedTable,
  code: string,
  wanted: Record<string, Column>,
  now: number,
  children?: (id: number, isNew: boolean) => Promise<boolean>,
): Promise<{ id: number; outcome: Outcome }> {
  const existing = (await lockedOnPostgres(
    trx,
    trx.selectFrom(table).selectAll().where('code', '=', code),
    'no key update',
  ).executeTakeFirst()) as Record<string, unknown> | undefined;
  if (existing === undefined) {
    const inserted = await trx
      .insertInto(table)
      .values({ code, ...wanted, created_at: now, updated_at: now } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(inserted.id);
    await children?.(id, true);
    return { id, outcome: 'created' };
  }
  const id = Number(existing.id);
  const rowChanged = Object.entries(wanted).some(([column, value]) => !same(existing[column], value));
  const childrenChanged = children ? await children(id, false) : false;
  if (!rowChanged && !childrenChanged) return { id, outcome: 'unchanged' };
  await trx
    .updateTable(table)
    .set({ ...wanted, updated_at: now } as never)
    .where('id', '=', id)
    .execute();
  return { id, outcome: 'updated' };
}

export interface BlockRow {
  position: number;
  type: string;
  is_active: boolean;
  visible_from: number | null;
  visible_to: number | null;
  settings: string;
  translations: string;
}

/** Replaces a block page's blocks when they differ from `rows`; true when they did. */
export async function replaceBlocks(trx: Kysely<Database>, pageId: number, rows: BlockRow[], isNew: boolean): Promise<boolean> {
  if (!isNew) {
    const stored = await trx
      .selectFrom('page_block')
      .select(['position', 'type', 'is_active', 'visible_from', 'visible_to', 'settings', 'translations'])
      .where('page_id', '=', pageId)
      .orderBy('position')
      .execute();
    const key = (row: BlockRow) =>
      JSON.stringify([row.position, row.type, Boolean(row.is_active), row.visible_from, row.visible_to, row.settings, row.translations]);
    const normalised = stored.map((row) => ({
      ...row,
      is_active: Boolean(row.is_active),
      visible_from: row.visible_from === null ? null : Number(row.visible_from),
      visible_to: row.visible_to === null ? null : Number(row.visible_to),
    }));
    if (normalised.length === rows.length && normalised.every((row, index) => key(row) === key(rows[index]!))) return false;
    await trx.deleteFrom('page_block').where('page_id', '=', pageId).execute();
  }
  if (rows.length > 0)
    await trx
      .insertInto('page_block')
      .values(rows.map((row) => ({ ...row, page_id: pageId })))
      .execute();
  return true;
}

/** Deletes the item with this code (a block page with its blocks); false when there was none. */
export async function deleteByCode(trx: Kysely<Database>, table: CodedTable, code: string): Promise<boolean> {
  if (table === 'block_page') {
    const page = await trx.selectFrom('block_page').select('id').where('code', '=', code).executeTakeFirst();
    if (page) await trx.deleteFrom('page_block').where('page_id', '=', page.id).execute();
  }
  const result = await trx.deleteFrom(table).where('code', '=', code).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The id of the store's category with this back-office code; undefined when there is none. */
export async function categoryIdByCode(trx: Kysely<Database>, storeCode: string, code: string): Promise<number | undefined> {
  const row = await trx.selectFrom('category').select('id').where('code', '=', code).where('store_code', '=', storeCode).executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}
