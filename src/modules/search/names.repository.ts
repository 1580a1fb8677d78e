import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { int } from '../../db/sql-int.js';
import { visibleSearchProduct, type Caller } from '../catalogue/index.js';
import type { Matches, NameKind, SearchEngine } from './engine.js';

// Persons, publishers and series as search reads them: names for autocomplete (suggestions.ts)
// and for facet values.

export interface NamedRef {
  id: number;
  code: string;
  name: string;
}

const TABLES: Record<NameKind, 'person' | 'publisher' | 'series'> = { person: 'person', publisher: 'publisher', series: 'series' };

/** The matched names, best first, that have a product visible to the caller in the store. */
export async function visibleNamesFrom(
  db: Db,
  engine: SearchEngine,
  kind: NameKind,
  matches: Matches,
  scope: { storeCode: string; caller: Caller },
  limit: number,
): Promise<NamedRef[]> {
  const visible = visibleSearchProduct(scope.storeCode, scope.caller, engine.contains);
  const hasProduct =
    kind === 'person'
      ? sql`exists (select 1 from product_person pp inner join search_product sp on sp.id = pp.product_id where pp.person_id = e.id and ${visible})`
      : sql`exists (select 1 from search_product sp where sp.${sql.ref(kind === 'publisher' ? 'publisher_id' : 'series_id')} = e.id and ${visible})`;
  const rows = await sql<NamedRef>`select e.id, e.code, e.name from ${matches} m inner join ${sql.table(TABLES[kind])} e on e.id = m.id
    where ${hasProduct} order by m.rank, e.name, e.id limit ${int(limit)}`.execute(db);
  return rows.rows.map((row) => ({ id: Number(row.id), code: row.code, name: row.name }));
}

/** Names of the given persons, publishers or series by id (for facet values). */
export async function namesById(db: Db, kind: NameKind, ids: number[]): Promise<Map<number, NamedRef>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom(TABLES[kind]).select(['id', 'code', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, { id: row.id, code: row.code, name: row.name }]));
}
