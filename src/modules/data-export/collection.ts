import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { byUpdate, type ExportFilters, type ExportWindow } from './export-window.js';

/** The position of a row in the export order: its time (creation, or last change when read by update), then id. */
export interface Boundary {
  time: number;
  id: number;
}

/** Which rows to read: those in the window, after `after` (when known), skipping `offset`, at most `limit`. */
export interface Slice {
  window: ExportWindow;
  after?: Boundary;
  offset: number;
  limit: number;
}

export interface ExportContext {
  db: Kysely<Database>;
  /** The store whose guest prices the product export shows, when the product is sold there (DEFAULT_STORE). */
  defaultStore: string;
  /** The moment prices are worked out for (campaign validity). */
  now: number;
  /** Rows created after this are not shown yet (`settledPart`). */
  settledUntil: number;
}

export type ExportTable = 'client_account' | 'product' | 'sales_history' | 'session_action' | 'shop';

/** One collection of the data-export API: how to read a slice of it and turn rows into items. */
export interface ExportCollection<Item = unknown> {
  /** Path under DATA_EXPORT_PATH, and the key of its caches. */
  path: string;
  table: ExportTable;
  /** Whether it takes createdFrom and createdTo, and updatedFrom and updatedTo (its table has updated_at). */
  filters: ExportFilters;
  /**
   * Whether this service stamps the rows as it writes them, so the newest are cut off until they
   * settle (`settledPart`). Every collection does: sales history too, whose rows are stamped with
   * this clock by the import (per line) and by order processing (when its job starts, before the
   * transaction that writes the row), not with a time the back office brings.
   */
  settles: boolean;
  /** Items of the slice, in export order, and the boundary of the last one. */
  load(context: ExportContext, slice: Slice): Promise<{ items: Item[]; last: Boundary | undefined }>;
}

/** The boundary of a slice's last row, in the slice's order (a read by update needs its rows' updated_at). */
export function lastBoundary(
  rows: ReadonlyArray<{ id: number; created_at: number; updated_at?: number }>,
  slice: Slice,
): Boundary | undefined {
  const last = rows.at(-1);
  if (last === undefined) return undefined;
  if (!byUpdate(slice.window)) return { time: Number(last.created_at), id: Number(last.id) };
  if (last.updated_at === undefined) throw new Error('a read by update must select updated_at');
  return { time: Number(last.updated_at), id: Number(last.id) };
}

export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [row]);
    else group.push(row);
  }
  return groups;
}

const NAME_LANGUAGES = ['et', 'en', 'ru'];

/** The Estonian name, else the English, else the Russian one (names are kept per language). */
export function pickName(names: ReadonlyArray<{ language: string; name: string }> | undefined): string | undefined {
  if (names === undefined) return undefined;
  for (const language of NAME_LANGUAGES) {
    const found = names.find((entry) => entry.language === language);
    if (found !== undefined) return found.name;
  }
  return names[0]?.name;
}
