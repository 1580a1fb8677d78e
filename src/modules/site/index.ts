// The site module's public surface: health, readiness and version routes, and their messages.
export { siteRoutes, type SiteDeps } from './site.routes.js';
export { siteMessages } from './site.messages.js';
