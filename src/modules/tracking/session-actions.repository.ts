import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

const PRUNE_BATCH = 10_000;

/**
 * Deletes session actions created before `before` (Unix ms), in batches so a year's backlog on
 * SQLite never holds the write lock for long. Returns how many were deleted.
 */
export async function pruneSessionActions(db: Kysely<Database>, before: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await db
      .deleteFrom('session_action')
      .where('id', 'in', (eb) =>
        eb.selectFrom('session_action').select('id').where('created_at', '<', before).orderBy('created_at').limit(PRUNE_BATCH),
      )
      .executeTakeFirst();
    const count = Number(result.numDeletedRows);
    deleted += count;
    if (count < PRUNE_BATCH) return deleted;
  }
}

/** Whether a product with this code exists (the tracking endpoint records only real products). */
export async function productExists(db: Kysely<Database>, code: string): Promise<boolean> {
  const row = await db.selectFrom('product').select('id').where('code', '=', code).executeTakeFirst();
  return row !== undefined;
}
