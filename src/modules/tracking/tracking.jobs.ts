import type { Db } from '../../db/database.js';
import { pruneSessionActions } from './session-actions.repository.js';

/**
 * The hourly maintenance's task for session actions: those older than the retention
 * (SESSION_ACTION_RETENTION_DAYS) are deleted. Returns how many were.
 */
export function sessionActionPruning(retentionMs: number): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneSessionActions(db, now - retentionMs);
}
