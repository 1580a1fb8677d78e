import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Logger } from '../../../infra/logger.js';
import { repeatOneAtATime } from '../../../infra/repeat.js';
import { foldCategoryListingDeltas } from './category-listing.repository.js';

/**
 * How often a worker folds the category totals' deltas (PostgreSQL, migration 2026_12_10_1010). A total's
 * read sums its category's deltas: a bulk deactivation of 3,000 products of the largest category (200,000
 * products, a loaded machine) left 3,000 on it, ~40 ms to sum, until the next fold (20,000 rows: ~70 ms).
 * A fold with nothing to fold costs a lock and an empty delete, so it runs often.
 */
export const CATEGORY_TOTALS_FOLD_INTERVAL_MS = 10_000;

/** Folds the category totals' deltas every interval, from the start (a fold is exact whenever it runs, in any process). */
export function scheduleCategoryTotalsFold(
  db: Kysely<Database>,
  log: Logger,
  intervalMs = CATEGORY_TOTALS_FOLD_INTERVAL_MS,
): { stop(): Promise<void> } {
  return repeatOneAtATime(
    () =>
      foldCategoryListingDeltas(db).then(
        (folded) => folded > 0 && log.info({ folded }, 'category totals folded'),
        (err: unknown) => log.error({ err }, 'category totals fold failed'),
      ),
    intervalMs,
    { fromStart: true },
  );
}
