import type { Database } from '../../db/schema.js';
import { replaceChildRows, type ChildRow, type ChildRows } from './child-rows.js';
import type { Trx } from './write.js';

// The translation tables (one row per language) of categories, shops, campaigns and product
// lists. Each is replaced whole when it differs from the line, and left alone when it does not.

export interface NameRow {
  language: string;
  name: string;
  /** The description (categories, campaigns) or opening hours (shops); null when none. */
  text: string | null;
}

type SyncNames = (trx: Trx, id: number, wanted: NameRow[], isNew: boolean) => Promise<boolean>;

/** A translation table, and where a name row's `text` goes in it. */
function nameTable<T extends keyof Database, O extends keyof Database[T] & string>(
  spec: ChildRows<T, O>,
  row: (name: NameRow) => ChildRow<T, O>,
): SyncNames {
  return (trx, id, wanted, isNew) => replaceChildRows(trx, spec, id, wanted.map(row), isNew);
}

/** Each returns whether it wrote anything. */
export const syncNames = {
  category: nameTable(
    { table: 'category_name', owner: 'category_id', compare: ['language', 'name', 'description'] },
    ({ language, name, text }) => ({
      language,
      name,
      description: text,
    }),
  ),
  shop: nameTable({ table: 'shop_name', owner: 'shop_id', compare: ['language', 'name', 'opening_hours'] }, ({ language, name, text }) => ({
    language,
    name,
    opening_hours: text,
  })),
  campaign: nameTable(
    { table: 'campaign_name', owner: 'campaign_id', compare: ['language', 'name', 'description'] },
    ({ language, name, text }) => ({
      language,
      name,
      description: text,
    }),
  ),
  productList: nameTable({ table: 'product_list_name', owner: 'product_list_id', compare: ['language', 'name'] }, ({ language, name }) => ({
    language,
    name,
  })),
};
