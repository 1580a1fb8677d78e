// The data export's own tables: the ERP's sales history it imports and serves, and export users.
// Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';

export interface SalesHistoryTable {
  id: Generated<number>;
  order_code: string;
  client_code: string;
  client_type: 'PYSIKLIENT' | 'ETTEVOTE';
  source_type: 'ONLINE' | 'OFFLINE';
  city: string;
  session_id: string | null;
  delivery_method: string;
  shop_code: string | null;
  /** When the row reached us. */
  created_at: number;
  /** When the ERP created the order; may arrive later. */
  created_nav: number | null;
  /**
   * When the row's export item last changed (createdNav filled, an erasure); the export's
   * updatedFrom finds rows by it. The service's inserts set it to created_at; one without it (a
   * process of the release before 1043, the tests' rows) gets created_at too (a trigger, migration
   * 2026_12_11_1600), hence optional in the type.
   */
  updated_at: ColumnType<number, number | undefined, number>;
}

export interface SalesHistoryItemTable {
  sales_history_id: number;
  position: number;
  product_code: string;
}

export interface ExportUserTable {
  id: Generated<number>;
  name: string;
  /** argon2id PHC string of the generated password. */
  password_hash: string;
  /** JSON array of CIDR blocks; empty: any address. */
  allowed_cidrs: ColumnType<string, string | undefined, string>;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface DataExportTables {
  sales_history: SalesHistoryTable;
  sales_history_item: SalesHistoryItemTable;
  export_user: ExportUserTable;
}
