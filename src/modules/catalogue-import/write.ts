import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { findCoded, insertCoded, updateCoded } from './write.repository.js';

export { inLineTransaction } from './write.repository.js';

// Writing by comparison: an import reads what is stored, writes only what differs, and says so.
// That is what makes a second run of the same file a no-op (no row and no updated_at changes).

export type Trx = Transaction<Database>;
export type Outcome = 'created' | 'updated' | 'unchanged';

/** The wanted columns whose stored value differs. Booleans read back as 0/1 on SQLite. */
export function changedColumns<T extends object>(stored: object, wanted: T): Partial<T> {
  const diff: Partial<T> = {};
  const current = stored as Record<string, unknown>;
  for (const [key, value] of Object.entries(wanted) as Array<[keyof T & string, T[keyof T & string]]>) {
    const old = current[key];
    const same =
      typeof value === 'boolean'
        ? old !== null && old !== undefined && Boolean(old) === value
        : old === value || (old == null && value == null);
    if (!same) diff[key] = value;
  }
  return diff;
}

export function isEmpty(value: object): boolean {
  return Object.keys(value).length === 0;
}

/** Whether two lists of rows hold the same values in the same order (rows as plain objects of scalars). */
export function sameRows<T extends object>(stored: readonly T[], wanted: readonly T[], keys: ReadonlyArray<keyof T>): boolean {
  if (stored.length !== wanted.length) return false;
  return stored.every((row, index) => keys.every((key) => (row[key] ?? null) === (wanted[index]![key] ?? null)));
}

export function sortedBy<T>(rows: readonly T[], key: (row: T) => string | number): T[] {
  return [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** Splits ids for `in (...)` lists that stay well under the engines' parameter limits. */
export function* chunks<T>(values: readonly T[], size = 500): Generator<T[]> {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size);
}

/** Tables of records the back office names by their code, with created_at and updated_at. */
type CodedTable = 'publisher' | 'series' | 'person' | 'category' | 'shop' | 'campaign' | 'product_list' | 'product';

/** The columns a line gives a coded record: all but its id, code and timestamps. */
export type RecordColumns<T extends CodedTable> = Omit<Insertable<Database[T]>, 'id' | 'code' | 'created_at' | 'updated_at'>;

export interface Upserted<W> {
  id: number;
  outcome: Outcome;
  /** The columns that differed from the stored row and were written; empty for a new record. */
  changed: Partial<W>;
}

/**
 * Writes the record with this code: inserted when it is new; otherwise only the columns that
 * differ are written, with a new updated_at, and nothing at all when neither they nor its child
 * rows changed. `children` writes those rows (names, prices, ...) and says whether it wrote any;
 * for a stored record it runs before the record's row is written, with the columns that will be.
 */
export async function upsertByCode<T extends CodedTable, W extends RecordColumns<T>>(
  trx: Trx,
  table: T,
  code: string,
  wanted: W,
  now: number,
  children: (id: number, isNew: boolean, changed: Partial<W>) => Promise<boolean> = async () => false,
): Promise<Upserted<W>> {
  // The table's name is data in the repository; the caller's types tie `wanted` to the table.
  const stored = await findCoded(trx, table, code);
  if (!stored) {
    const id = await insertCoded(trx, table, { ...wanted, code, created_at: now, updated_at: now });
    await children(id, true, {});
    return { id, outcome: 'created', changed: {} };
  }
  const changed = changedColumns(stored, wanted);
  const childrenChanged = await children(stored.id, false, changed);
  if (isEmpty(changed) && !childrenChanged) return { id: stored.id, outcome: 'unchanged', changed };
  await updateCoded(trx, table, stored.id, { ...changed, updated_at: now });
  return { id: stored.id, outcome: 'updated', changed };
}
