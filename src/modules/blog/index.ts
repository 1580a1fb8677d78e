// Blog, news, shop schedules, redirects and QR codes: what the front-end shows around the
// catalogue (issue 16). Other modules and the composition roots import this module only from here.
export type * from './blog.tables.js';
export { blogMessages } from './blog.messages.js';
export { blogRoutes, type BlogDeps } from './blog.routes.js';
export { blogImportKinds } from './content-import.js';
export { applyContentLine } from './content-kinds.js';
