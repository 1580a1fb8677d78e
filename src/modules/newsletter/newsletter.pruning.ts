import type { Db } from '../../db/database.js';
import { pruneRequests } from './newsletter.repository.js';

const KEEP_REQUESTS_MS = 30 * 86_400_000;

/** The prune task for the worker (src/worker.ts): requests a month old whose links no longer work. */
export function newsletterRequestPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneRequests(db, now - KEEP_REQUESTS_MS, now);
}
