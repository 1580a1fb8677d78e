import type { Db } from '../../db/database.js';
import { pruneUsedIdTokens } from './social.repository.js';

/** The prune task for the worker (src/worker.ts): forgets the ID tokens apps used once they expired. */
export function usedIdTokenPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneUsedIdTokens(db, now);
}
