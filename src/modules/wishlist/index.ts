// The wishlist's public surface: its routes (app.ts), its tables (schema.ts) and messages (messages.ts).
export { wishlistRoutes, type WishlistDeps } from './wishlist.routes.js';
export { MAX_WISHLIST_ITEMS } from './wishlist.service.js';
export type * from './wishlist.tables.js';
export { wishlistMessages } from './wishlist.messages.js';
export { wishlistPersonalData } from './wishlist.personal-data.js';
