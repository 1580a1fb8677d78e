import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

// The look-ups behind References (references.ts): codes to ids, categories, bindings.

export type CodedTable = 'publisher' | 'series' | 'person' | 'product' | 'shop' | 'product_list' | 'campaign';

export function findIdsByCode(db: Kysely<Database>, table: CodedTable, codes: string[]) {
  return db.selectFrom(table).select(['id', 'code']).where('code', 'in', codes).execute();
}

export function findCategoriesByCode(db: Kysely<Database>, codes: string[]) {
  return db.selectFrom('category').select(['id', 'code', 'store_code', 'level']).where('code', 'in', codes).execute();
}

export async function readBindingCodes(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('binding').select('code').execute()).map((row) => row.code);
}
