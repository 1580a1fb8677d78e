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
}

export function readBasketConfig(env: EnvReader): BasketSection {
  return {
    newGuestBasketsPerIp: env.rateLimit('BASKET_RATE_LIMIT_PER_IP', '300/1h'),
    guestWritesPerIp: env.rateLimit('BASKET_WRITE_RATE_LIMIT_PER_IP', '600/1m'),
    wrongCodesPerIp: env.rateLimit('DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP', '10/10m'),
  };
}
