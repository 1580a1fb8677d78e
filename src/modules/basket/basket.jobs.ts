import type { Db } from '../../db/database.js';
import { pruneBaskets } from './basket.repository.js';
import { EMPTY_BASKET_TTL_MS, GUEST_BASKET_TTL_MS } from './basket.service.js';

/**
 * The hourly maintenance's task for baskets: empty ones a day after their last change, guests'
 * 30 days after it. Returns how many baskets were deleted.
 */
export function basketPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneBaskets(db, now, EMPTY_BASKET_TTL_MS, GUEST_BASKET_TTL_MS);
}
