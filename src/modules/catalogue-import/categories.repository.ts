import type { Db } from '../../db/database.js';

// The SQL of the categories import (categories.ts): the tree as stored, and its levels.

export function findCategoryId(trx: Db, code: string) {
  return trx.selectFrom('category').select('id').where('code', '=', code).executeTakeFirst();
}

/** One child of the category, if it has any. */
export function findChildCategory(trx: Db, id: number) {
  return trx.selectFrom('category').select('code').where('parent_id', '=', id).executeTakeFirst();
}

export function findCategoryForParent(trx: Db, code: string) {
  return trx.selectFrom('category').select(['id', 'store_code', 'level', 'parent_id']).where('code', '=', code).executeTakeFirst();
}

export function findParentId(trx: Db, id: number): Promise<{ parent_id: number | null } | undefined> {
  return trx.selectFrom('category').select('parent_id').where('id', '=', id).executeTakeFirst();
}

/** The ids of the categories' children, whose level then becomes `level`. */
export async function relevelChildren(trx: Db, parentIds: number[], level: number, now: number): Promise<number[]> {
  const rows = await trx.selectFrom('category').select('id').where('parent_id', 'in', parentIds).execute();
  if (rows.length > 0) await trx.updateTable('category').set({ level, updated_at: now }).where('parent_id', 'in', parentIds).execute();
  return rows.map((row) => row.id);
}
