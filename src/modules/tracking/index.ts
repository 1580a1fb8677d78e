// Session actions (views, wishlist and basket additions) the front-end reports, for the data export.
export {
  createSessionActionRecorder,
  normaliseSessionId,
  recordView,
  type RecorderLog,
  type RecorderOptions,
  type SessionAction,
  type SessionActionRecorder,
  type ViewRequest,
} from './session-actions.js';
export { pruneSessionActions } from './session-actions.repository.js';
export { sessionActionPruning } from './tracking.jobs.js';
export { DUPLICATE_WINDOW_MS } from './session-action-gate.js';
export type { TrackingSection } from './tracking.config.js';
export { trackingRoutes, type ProductCodeVisibility, type TrackingDeps } from './tracking.routes.js';
export type { SessionActionTable, SessionActionType, TrackingTables } from './tracking.tables.js';
export { trackingMessages } from './tracking.messages.js';
export { trackingPersonalData } from './tracking.personal-data.js';
