// The operators' admin surface: API keys (CLI) and the back office's imports over HTTP.
export { adminRoutes, authenticateOperator, IMPORT_BODY_LIMIT_BYTES, type AdminDeps } from './admin.routes.js';
export { API_KEY_USAGE, apiKeyCommand } from './api-keys.cli.js';
export type { AdminTables, ApiKeyTable } from './admin.tables.js';
export { adminMessages } from './admin.messages.js';
// The NDJSON upload and the import answer, shared with the suppliers' feeds (modules/integrations).
export { acceptNdjsonBodies, NDJSON, tooLarge, withNdjsonBody } from './ndjson-body.plugin.js';
export { IMPORT_ERRORS_LISTED, ImportResult } from './admin.schemas.js';
export { importErrorList } from './import-errors.js';
