import type { Db } from '../../db/database.js';
import type { QueryBudget } from '../../db/query-budget.js';
import type { Caller, CategoryTree } from '../catalogue/index.js';
import type { NameKind, SearchEngine, TextQuery } from './engine.js';
import { visibleNamesFrom, type NamedRef } from './names.repository.js';
import { terms } from './query-text.js';

// Autocomplete beside the products: persons, publishers and series whose names match and who
// have something the caller can see in this store, and categories of the store's menu.

const NAME_CANDIDATES = 50;

/** Ranked names of one kind that have a product visible to the caller in the store. */
export async function suggestNames(
  db: Db,
  engine: SearchEngine,
  kind: NameKind,
  query: TextQuery,
  scope: { storeCode: string; caller: Caller; budget?: QueryBudget },
  limit: number,
): Promise<NamedRef[]> {
  if (limit <= 0) return [];
  // The best few dozen names are enough to find a handful with something visible in the store.
  const found = await visibleNamesFrom(db, engine, kind, engine.matchNames(kind, query, NAME_CANDIDATES, scope.budget), scope, limit);
  if (found.length > 0) return found;
  const similar = engine.similarNames(kind, query, 50);
  return similar ? visibleNamesFrom(db, engine, kind, similar, scope, limit) : [];
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
