import { translatedName } from '../translated.js';
import type { CategoryRow } from './category.repository.js';

export interface CategoryNode {
  id: number;
  code: string;
  name: string;
  description: string | null;
  level: number;
  position: number;
  parentId: number | null;
  childIds: number[];
}

/** A store's active categories in one language: a few hundred rows, read once per cache period. */
export interface CategoryTree {
  byId: Map<number, CategoryNode>;
  roots: CategoryNode[];
  /** The category and every category below it (active ones only); empty when unknown. */
  subtreeIds(id: number): number[];
  /** From the root down to the category itself. */
  path(id: number): CategoryNode[];
}

/** The lists subtreeIds() gave: a filter holding one of them is a whole subtree, its first id the subtree's top. */
const subtrees = new WeakSet<readonly number[]>();

/** Whether `ids` is a list subtreeIds() gave (not one put together elsewhere), so its first id names the whole list. */
export function isSubtreeList(ids: readonly number[]): boolean {
  return subtrees.has(ids);
}

/** The tree of a store's active categories from their rows (in display order). */
export function buildCategoryTree(rows: readonly CategoryRow[]): CategoryTree {
  const byId = new Map<number, CategoryNode>();
  for (const row of rows) {
    byId.set(row.id, {
      id: row.id,
      code: row.code,
      name: translatedName(row),
      description: row.name !== null ? row.description : row.et_description,
      level: row.level,
      position: row.position,
      parentId: row.parent_id,
      childIds: [],
    });
  }
  const roots: CategoryNode[] = [];
  for (const node of byId.values()) {
    // A category under an inactive parent is hidden with it.
    if (node.parentId === null) roots.push(node);
    else byId.get(node.parentId)?.childIds.push(node.id);
  }
  const reachable = new Map<number, CategoryNode>();
  const visit = (node: CategoryNode) => {
    reachable.set(node.id, node);
    for (const child of node.childIds) visit(byId.get(child)!);
  };
  roots.forEach(visit);
  return {
    byId: reachable,
    roots,
    subtreeIds(id) {
      const start = reachable.get(id);
      if (!start) return [];
      const ids: number[] = [];
      const stack = [start];
      while (stack.length > 0) {
        const node = stack.pop()!;
        ids.push(node.id);
        for (const child of node.childIds) stack.push(reachable.get(child)!);
      }
      subtrees.add(ids);
      return ids;
    },
    path(id) {
      const path: CategoryNode[] = [];
      for (let node = reachable.get(id); node; node = node.parentId === null ? undefined : reachable.get(node.parentId)) path.unshift(node);
      return path;
    },
  };
}
