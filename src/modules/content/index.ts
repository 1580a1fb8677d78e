// The content module's public surface: content pages, block pages (composite, category, discount,
// main), banners and menus; their read routes, operator edits and import kinds.
export type * from './content.tables.js';
export { contentMessages } from './content.messages.js';
export { contentImportKinds } from './content-kinds.js';
export { CONTENT_MAX_AGE_SECONDS, contentCacheFor, contentRoutes, type ContentDeps } from './content.routes.js';
// Single saves (upsert by code, HTML sanitized), for the demo data.
export { saveBanner, saveBlockPage, saveContentPage, saveMenu } from './content-write.service.js';
export type { BannerInput, BlockPageInput, ContentPageInput, MenuInput } from './content-input.schemas.js';
export { existingBanners } from './banner-ids.repository.js';
