// The sitemap's public surface: its routes (app.ts), command (main.ts), tables (schema.ts) and messages (messages.ts).
export { sitemapRoutes, type SitemapDeps } from './sitemap.routes.js';
export { SITEMAP_USAGE, sitemapCommand } from './sitemap.cli.js';
export { MAX_URLS_PER_FILE } from './sitemap.service.js';
export type * from './sitemap.tables.js';
export { sitemapMessages } from './sitemap.messages.js';
