// The search module's public surface: the routes, what app.ts gives them, the operators' command,
// and the index upkeep that tools filling a database (the benchmark's dataset) run.

export { searchRoutes } from './search.routes.js';
export type { SearchDeps } from './search.deps.js';
export type { SearchConfig } from './search.config.js';
export { SEARCH_USAGE, foldImportedChanges, searchCommand } from './search.cli.js';
export { createEngine } from './engines.js';
export type { SearchEngine } from './engine.js';
export { BACKLOG_LIMIT, FOLD_BATCH, finishBuild, foldAllQueued, foldBatch, readState, startRebuild } from './index-maintenance.js';
// Readiness checks (/site/ready) ask this whether searches can answer.
export { searchIndexReadiness, type SearchIndexReadiness, type UnreadyReason } from './index-readiness.js';
export { countPending } from './search-index.repository.js';
export type { SearchPendingTable, SearchProductTable, SearchStateTable, SearchTables } from './search.tables.js';
export { searchMessages } from './search.messages.js';
