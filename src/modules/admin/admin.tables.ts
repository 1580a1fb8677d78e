// API keys for the admin endpoints. Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface ApiKeyTable {
  id: Generated<number>;
  name: string;
  /** SHA-256 of the key, hex. */
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface AdminTables {
  api_key: ApiKeyTable;
}
