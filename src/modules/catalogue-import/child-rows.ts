import type { Insertable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { sameRows, sortedBy, type Trx } from './write.js';
import { deleteChildRows, insertChildRows, readChildRows } from './write.repository.js';

// The rows that hang off one owner row and are written as a whole: a product's codes, stores,
// persons, categories, assets and related products, a campaign's prices, a list's items, the
// names of a category, shop, campaign or list. The stored rows are compared with the wanted ones
// and replaced (deleted, then inserted) only when they differ, so an unchanged line writes nothing.

type Column<T extends keyof Database> = keyof Database[T] & string;

export interface ChildRows<T extends keyof Database, O extends Column<T>> {
  table: T;
  /** The column that points at the owner row. */
  owner: O;
  /** The columns compared with the stored rows (the rows may carry more, e.g. a position). */
  compare: ReadonlyArray<Column<T>>;
  /** The stored rows in this order are compared with the wanted ones in theirs; without it, as sets. */
  orderBy?: ReadonlyArray<Column<T>>;
}

/** A child row as a line gives it: every column but the owner. */
export type ChildRow<T extends keyof Database, O extends Column<T>> = Omit<Insertable<Database[T]>, O>;

type Row = Record<string, unknown>;

/**
 * Makes the owner's rows of the table the wanted ones; returns whether it wrote any. A new owner
 * has no rows yet: nothing is read, and nothing is written when none are wanted.
 */
export async function replaceChildRows<T extends keyof Database, O extends Column<T>>(
  trx: Trx,
  spec: ChildRows<T, O>,
  ownerId: number,
  rows: ReadonlyArray<ChildRow<T, O>>,
  isNew: boolean,
): Promise<boolean> {
  const [table, owner, compare]: [string, string, readonly string[]] = [spec.table, spec.owner, spec.compare];
  const wanted = rows as ReadonlyArray<Row>;
  if (!isNew) {
    const stored = await readChildRows(trx, table, owner, ownerId, compare, spec.orderBy ?? []);
    if (spec.orderBy ? sameRows(stored, wanted, compare) : sameSet(stored, wanted, compare)) return false;
    await deleteChildRows(trx, table, owner, ownerId);
  }
  // In slices: a big campaign or list would exceed the engines' bound-parameter limits at once.
  for (let start = 0; start < wanted.length; start += 1000) {
    await insertChildRows(
      trx,
      table,
      wanted.slice(start, start + 1000).map((row) => ({ ...row, [owner]: ownerId })),
    );
  }
  return !isNew || wanted.length > 0;
}

function sameSet(stored: readonly Row[], wanted: readonly Row[], columns: readonly string[]): boolean {
  if (stored.length !== wanted.length) return false;
  const key = (row: Row) => JSON.stringify(columns.map((column) => row[column] ?? null));
  return sameRows(sortedBy(stored, key), sortedBy(wanted, key), columns);
}
