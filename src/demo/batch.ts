import type { Insertable } from 'kysely';
import type { Database } from '../db/schema.js';

// What the generator hands to the writer: rows per table, with explicit ids, so that rows of one
// batch can point at each other without reading anything back.

export type TableName = keyof Database;
export type Batch = { [T in TableName]?: Insertable<Database[T]>[] };

/** Parents before children, so every foreign key points at a row that is already there. */
export const INSERT_ORDER: readonly TableName[] = [
  'publisher',
  'series',
  'person',
  'category',
  'category_name',
  'shop',
  'shop_name',
  'app_user',
  'company',
  'client_account',
  'newsletter_subscriber',
  'product',
  'product_alt_code',
  'product_store',
  'product_person',
  'product_category',
  'product_asset',
  'product_related',
  'shop_stock',
  'product_rating',
  'product_comment',
  'campaign',
  'campaign_name',
  'campaign_price',
  'product_list',
  'product_list_name',
  'product_list_item',
  'quote',
  'client_category_preference',
  'sales_history',
  'sales_history_item',
  'session_action',
];

/** Tables whose ids the generator assigns (auto-numbered otherwise): the sequences follow them. */
export const ID_TABLES = [
  'publisher',
  'series',
  'person',
  'category',
  'shop',
  'app_user',
  'company',
  'client_account',
  'product',
  'product_asset',
  'product_comment',
  'campaign',
  'product_list',
  'quote',
  'sales_history',
  'session_action',
] as const satisfies readonly TableName[];

export type IdTable = (typeof ID_TABLES)[number];

/** The first free id of each table. */
export type IdBase = Record<IdTable, number>;

export function push<T extends TableName>(batch: Batch, table: T, ...rows: Insertable<Database[T]>[]): void {
  const list = (batch[table] ??= []) as Insertable<Database[T]>[];
  for (const row of rows) list.push(row);
}

export function rowCount(batch: Batch): number {
  let count = 0;
  for (const rows of Object.values(batch)) count += rows?.length ?? 0;
  return count;
}
