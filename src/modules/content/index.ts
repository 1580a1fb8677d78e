// The content module's public surface: content pages, block pages (composite, category, discount,
// main), banners and menus; their read routes, operator edits and import kinds.
export type * from './content.tables.js';
