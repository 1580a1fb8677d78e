import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `backInStock` section of the configuration: how many requests one address may make (counted in the database). */
export interface BackInStockSection {
  /** POST /back-in-stock per client address (IPv6 by its /64). */
  perIp: RateLimit;
  /**
   * POST /back-in-stock per email address asked to be told: nobody signs one address up for a flood of mails.
   * A logged-in client's requests (which mail nothing when made) count per client account instead.
   */
  perEmail: RateLimit;
  /** How long a guest's confirmation link works after it is mailed; an unconfirmed request is dropped then. */
  confirmTokenTtlMs: number;
  /** The front-end page of the confirmation link (after the store's front-end URL), which posts the token on. */
  confirmPath: string;
  /** POST /back-in-stock/confirm per client address, counted before validation (nobody tries tokens in bulk). */
  confirmPerIp: RateLimit;
}

export function readBackInStockConfig(env: EnvReader): BackInStockSection {
  return {
    perIp: env.rateLimit('BACK_IN_STOCK_RATE_LIMIT_PER_IP', '30/1h'),
    perEmail: env.rateLimit('BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL', '10/1h'),
    confirmTokenTtlMs: env.duration('BACK_IN_STOCK_CONFIRM_TOKEN_TTL', '2d'),
    confirmPath: env.urlPath('BACK_IN_STOCK_CONFIRM_PATH', '/back-in-stock/confirm'),
    confirmPerIp: env.rateLimit('BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP', '20/1m'),
  };
}
