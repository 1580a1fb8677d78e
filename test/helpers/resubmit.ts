import type { Db } from '../../src/db/database.js';

/**
 * As if the resubmit window (src/infra/resubmit.ts) had passed: the same request sent again is
 * a new one, not a double submit. For the tests of what asking again later does.
 */
export async function pastResubmitWindow(db: Db): Promise<void> {
  await db.deleteFrom('rate_limit').where('key', 'like', 'resubmit:%').execute();
}
