import type { Db } from '../../db/database.js';
import { pruneExpiredSignIns, pruneUsedIdTokens } from './social.repository.js';

/** The prune task for the worker (src/worker.ts): forgets the ID tokens apps used once they expired. */
export function usedIdTokenPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneUsedIdTokens(db, now);
}

/** The prune task for the worker: deletes expired sign-in flows and authentication records. */
export function socialSignInPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneExpiredSignIns(db, now);
}
