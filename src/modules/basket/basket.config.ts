import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `basket` section of the configuration. */
export interface BasketSection {
  /** New guest baskets (a write without a basket-token) per client address (IPv6 by its /64), counted in the database. */
  newGuestBasketsPerIp: RateLimit;
  /**
   * Guest basket writes of any kind per client address (IPv6 by its /64), a token bucket in this
   * process's memory: a guest's writes to a basket it has cost a transaction each and are not
   * counted by newGuestBasketsPerIp.
   */
  guestWritesPerIp: RateLimit;
  /**
   * Wrong discount codes one client address (IPv6 by its /64) may try, counted in the database:
   * every try is counted first and a right code takes its count back, so past the limit any code is
   * a 429 until the window ends. Guessing codes is not a game.
   */
  wrongCodesPerIp: RateLimit;
  /** A logged-in client's basket is reminded of this long after its last change (and never past 7 days). */
  reminderAfterMs: number;
  /** How often the worker looks for baskets to remind of. */
  reminderScanIntervalMs: number;
  /** The front end's basket page (after the store's front-end URL), which the reminder links to. */
  basketPagePath: string;
}

const HOUR_MS = 3_600_000;

export function readBasketConfig(env: EnvReader): BasketSection {
  return {
    newGuestBasketsPerIp: env.rateLimit('BASKET_RATE_LIMIT_PER_IP', '300/1h'),
    guestWritesPerIp: env.rateLimit('BASKET_WRITE_RATE_LIMIT_PER_IP', '600/1m'),
    wrongCodesPerIp: env.rateLimit('DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP', '10/10m'),
    // Below the 7 days after which a basket is no longer reminded of, or none ever would be.
    reminderAfterMs: env.integer('BASKET_REMINDER_AFTER_HOURS', 24, 1, 167) * HOUR_MS,
    reminderScanIntervalMs: env.interval('BASKET_REMINDER_SCAN_INTERVAL', '10m'),
    basketPagePath: env.urlPath('BASKET_PAGE_PATH', '/basket'),
  };
}
