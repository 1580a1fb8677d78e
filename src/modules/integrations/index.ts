// Partner integrations: suppliers push their feeds in (signed), and events (modules/events) go out
// to marketing platforms as signed webhooks or through the pull feed. docs/integrations.md.
export { supplierRoutes, SUPPLIER_BODY_LIMIT_BYTES, type SupplierRoutesDeps } from './supplier.routes.js';
export { eventFeedRoutes, type EventFeedDeps } from './event-feed.routes.js';
export { SUPPLIER_USAGE, supplierCommand } from './suppliers.cli.js';
export { WEBHOOK_USAGE, webhookCommand } from './webhooks.cli.js';
export { EVENT_FEED_USAGE, eventFeedCommand } from './feed-clients.js';
export { createWebhookDispatcher, retryDelayMs, scheduleWebhookDispatch, type WebhookDispatcher } from './webhook-dispatch.js';
export { signText, MAX_AGE_SECONDS } from './signature.js';
export { pruneIntegrationEvents } from './webhooks.repository.js';
export { readIntegrationsConfig, type IntegrationsSection } from './integrations.config.js';
export type { IntegrationsTables } from './integrations.tables.js';
export { integrationsMessages } from './integrations.messages.js';
export { integrationsPersonalData } from './integrations.personal-data.js';
