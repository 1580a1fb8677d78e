// The wishlist's public surface: its routes (app.ts), the offer scan and mail job (worker.ts), its
// config section (config.ts), tables (schema.ts) and messages (messages.ts).
export { wishlistRoutes, type WishlistDeps } from './wishlist.routes.js';
export { MAX_WISHLIST_ITEMS } from './wishlist.service.js';
export {
  MAX_OFFERS_PER_MAIL,
  type OfferRecipient,
  type OfferRecipients,
  scanWishlistOffers,
  scheduleWishlistOfferScan,
  WISHLIST_OFFER_MAIL_JOB,
  wishlistOfferMailHandler,
} from './wishlist.jobs.js';
export { readWishlistConfig, type WishlistSection } from './wishlist.config.js';
export type * from './wishlist.tables.js';
export { wishlistMessages } from './wishlist.messages.js';
export { wishlistOfferMailPersonalData, wishlistPersonalData } from './wishlist.personal-data.js';
