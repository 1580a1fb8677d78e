import type { DatabaseHandle } from '../../db/database.js';
import { migrations } from '../../db/migrations/index.js';
import { searchIndexReadiness } from '../search/index.js';
import { appliedMigrationNames } from './site.repository.js';

/** Why the service should not be sent traffic; none means ready. */
export type NotReadyReason =
  | { check: 'database' }
  | { check: 'migrations'; pending: string[] }
  | { check: 'search'; state: 'building' | 'behind' | 'missing' }
  | { check: 'stopping' };

/**
 * What a load balancer asks before it sends traffic (GET /site/ready): the database answers, its
 * schema is this build's, and the search index can answer (not being rebuilt and not far behind,
 * the rule searches use, so a first import keeps a process out of rotation until it caught up).
 * Liveness is /site/health, which asks the database only.
 */
export async function notReadyReasons(database: DatabaseHandle, now: number): Promise<NotReadyReason[]> {
  try {
    await database.ping();
  } catch {
    // The other checks would only fail the same way.
    return [{ check: 'database' }];
  }
  const reasons: NotReadyReason[] = [];
  const applied = new Set(await appliedMigrationNames(database.db));
  // In the order they will run (by name), whatever the index's order.
  const pending = Object.keys(migrations)
    .filter((name) => !applied.has(name))
    .sort();
  if (pending.length > 0) reasons.push({ check: 'migrations', pending });
  // The search module's own rule: the same answer a search would give now (a first build included).
  const search = await searchIndexReadiness(database, now);
  if (!search.ready) reasons.push({ check: 'search', state: search.reason ?? 'missing' });
  return reasons;
}
