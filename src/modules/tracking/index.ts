// The tracking module's public surface (minimal, for the catalogue; the tracking branch owns this file).
export { createSessionActionRecorder, recordView, type SessionActionRecorder } from './session-actions.js';
