import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `giftCards` section of the configuration. */
export interface GiftCardsSection {
  /**
   * Wrong gift-card codes (unknown, expired, a wrong check character) one client address (IPv6 by
   * its /64) may try, balance checks and baskets together, counted in the database; past it every
   * code, a right one too, is a 429 until the window ends. With 80-bit codes and a million live cards
   * a guess hits with p = 10^6 / 2^80 ≈ 8·10^-19; at the default 10 per 10 minutes an address makes
   * 1,440 a day, so even a million addresses guessing together need about 2·10^6 years for an even chance.
   */
  wrongCodesPerIp: RateLimit;
}

export function readGiftCardsConfig(env: EnvReader): GiftCardsSection {
  return {
    wrongCodesPerIp: env.rateLimit('GIFT_CARD_GUESS_RATE_LIMIT_PER_IP', '10/10m'),
  };
}
