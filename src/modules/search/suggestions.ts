import { sql } from 'kysely';
import type { CategoryTree } from '../catalogue/category-tree.js';
import type { Caller } from '../catalogue/caller.js';
import { int } from '../../db/sql-int.js';
import type { Db, Matches, NameKind, SearchEngine, TextQuery } from './engine.js';
import { terms } from './query-text.js';
import { visibleSql } from './search-query.js';

// Autocomplete beside the products: persons, publishers and series whose names match and who
// have something the caller can see in this store, and categories of the store's menu.

export interface NamedRef {
  id: number;
  code: string;
  name: string;
}

const NAME_CANDIDATES = 50;
const TABLES: Record<NameKind, 'person' | 'publisher' | 'series'> = { person: 'person', publisher: 'publisher', series: 'series' };

/** Ranked names of one kind that have a product visible to the caller in the store. */
export async function suggestNames(
  db: Db,
  engine: SearchEngine,
  kind: NameKind,
  query: TextQuery,
  scope: { storeCode: string; caller: Caller },
  limit: number,
): Promise<NamedRef[]> {
  if (limit <= 0) return [];
  // The best few dozen names are enough to find a handful with something visible in the store.
  const found = await namesFrom(db, engine, kind, engine.matchNames(kind, query, NAME_CANDIDATES), scope, limit);
  if (found.length > 0) return found;
  const similar = engine.similarNames(kind, query, 50);
  return similar ? namesFrom(db, engine, kind, similar, scope, limit) : [];
}

async function namesFrom(db: Db, engine: SearchEngine, kind: NameKind, matches: Matches, scope: { storeCode: string; caller: Caller }, limit: number): Promise<NamedRef[]> {
  const visible = visibleSql(engine, scope.storeCode, scope.caller);
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

// The folded words of each category name, worked out once per tree (trees are cached per store and language).
const folded = new WeakMap<CategoryTree, Map<number, string[]>>();

function wordsOf(tree: CategoryTree): Map<number, string[]> {
  let words = folded.get(tree);
  if (!words) {
    words = new Map([...tree.byId.values()].map((node) => [node.id, terms(node.name)]));
    folded.set(tree, words);
  }
  return words;
}

/** Categories of the store's tree whose name holds every term (the last as a prefix), shallow ones first. */
export function suggestCategories(tree: CategoryTree, query: TextQuery, limit: number): number[] {
  if (limit <= 0) return [];
  const found: Array<{ id: number; level: number; index: number }> = [];
  const names = wordsOf(tree);
  let index = 0;
  for (const node of tree.byId.values()) {
    index += 1;
    const words = names.get(node.id) ?? [];
    const all = query.terms.every((term, position) =>
      query.prefix && position === query.terms.length - 1 ? words.some((word) => word.startsWith(term)) : words.includes(term),
    );
    if (all) found.push({ id: node.id, level: node.level, index });
  }
  return found
    .sort((a, b) => a.level - b.level || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.id);
}
