import type { EnvReader } from '../../infra/env.js';

/** The `wishlist` section of the configuration: the wishlist offer mails (wishlist.jobs.ts). */
export interface WishlistSection {
  /** How much lower (percent of the remembered price) a client's price must be to be an offer. */
  offerMinDropPercent: number;
  /** How often the worker looks for offers. */
  offerScanIntervalMs: number;
  /** At most one offer mail per client in this long; an offer found sooner waits for it. */
  offerMailIntervalMs: number;
  /** The front end's wishlist page (after the store's front-end URL), linked from the mail. */
  wishlistPath: string;
  /** The front end's page of the account's notification preferences, where the mails are turned off. */
  preferencesPath: string;
}

export function readWishlistConfig(env: EnvReader): WishlistSection {
  return {
    offerMinDropPercent: env.integer('WISHLIST_OFFER_MIN_DROP_PERCENT', 5, 1, 99),
    offerScanIntervalMs: env.interval('WISHLIST_OFFER_SCAN_INTERVAL', '10m'),
    offerMailIntervalMs: env.duration('WISHLIST_OFFER_MAIL_INTERVAL', '7d'),
    wishlistPath: env.urlPath('WISHLIST_PAGE_PATH', '/wishlist'),
    preferencesPath: env.urlPath('WISHLIST_OFFER_PREFERENCES_PATH', '/account/preferences'),
  };
}
