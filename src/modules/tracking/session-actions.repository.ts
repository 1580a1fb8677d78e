import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import type { SessionActionType } from './tracking.tables.js';

const PRUNE_BATCH = 10_000;

/**
 * Deletes session actions created before `before` (Unix ms), in batches so a year's backlog on
 * SQLite never holds the write lock for long. Returns how many were deleted.
 */
export async function pruneSessionActions(db: Db, before: number): Promise<number> {
  return deleteInBatches(db, 'session_action', {
    key: 'id',
    where: (eb) => eb('created_at', '<', before),
    orderBy: 'created_at',
    batchSize: PRUNE_BATCH,
  });
}

export interface SessionActionRow {
  sessionId: string;
  storeCode: string;
  productCode: string;
  clientCode: string | null;
  actionType: SessionActionType;
  createdAt: number;
}

/** Inserts a batch of session actions in one statement. */
export async function insertSessionActions(db: Db, actions: readonly SessionActionRow[]): Promise<void> {
  if (actions.length === 0) return;
  await db
    .insertInto('session_action')
    .values(
      actions.map((action) => ({
        session_id: action.sessionId,
        store_code: action.storeCode,
        product_code: action.productCode,
        client_code: action.clientCode,
        action_type: action.actionType,
        created_at: action.createdAt,
      })),
    )
    .execute();
}
