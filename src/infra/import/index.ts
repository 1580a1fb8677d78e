// The NDJSON import engine: reading a file line by line, the kinds' shape, and the lock that keeps
// imports of one kind from overlapping. It knows no module; src/import-kinds.ts lists the kinds.
export {
  createImporter,
  importUsage,
  type ImportDeps,
  type Importer,
  type ImportKind,
  type ImportKinds,
  type ImportOptions,
  type RunImport,
} from './import-kind.js';
export { excerpt, KeyedLineError, LineError, stepFailureMessage } from './line-failure.js';
export { BAD_LINES_SHOWN, showingFirstBadLines } from './bad-lines-shown.js';
export { ImportProgress } from './progress.js';
export { compileLineCheck, type LineCheck } from './line-check.js';
export { memberStrings, repeatedMember } from './repeated-member.js';
export { IMPORT_LOCK_TTL_MS, ImportRunningError, withImportLock } from './import-lock.js';
export {
  ImportRefusedError,
  importNdjson,
  parseReport,
  readNdjson,
  stoppedBeforeFirstLine,
  type EndOfFileReport,
  type ImportSummary,
  type LineImporter,
} from './ndjson-import.js';
