// The site module's public surface: health and version routes.
export { siteRoutes, type SiteDeps } from './site.routes.js';
