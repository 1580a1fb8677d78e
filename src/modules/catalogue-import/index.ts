// The back office's catalogue feeds: one import kind per NDJSON format (docs/import.md); the
// registry of every kind is the composition root src/import-kinds.ts.
export { catalogueImportKinds } from './kinds.js';
