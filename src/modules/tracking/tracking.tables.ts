// What shoppers did in a session (views, wishlist, basket), for recommendations and exports.
// Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export type SessionActionType = 'VIEW' | 'ADD_TO_WISHLIST' | 'ADD_TO_BASKET';

export interface SessionActionTable {
  id: Generated<number>;
  session_id: string;
  store_code: string;
  product_code: string;
  /** Null for a guest. */
  client_code: string | null;
  action_type: SessionActionType;
  created_at: number;
}

export interface TrackingTables {
  session_action: SessionActionTable;
}
