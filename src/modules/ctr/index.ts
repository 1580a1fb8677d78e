// Banner click-through statistics' public surface: its routes and recorder (app.ts), its pruning
// (worker.ts), config section (config.ts), tables (schema.ts) and messages (messages.ts).
export { ctrRoutes, type CtrDeps } from './ctr.routes.js';
export { bannerCtrPruning, CTR_RETENTION_DAYS } from './ctr.service.js';
export { createCtrRecorder, type BannerCheck, type CtrRecorder } from './ctr-recorder.js';
export { readCtrConfig, type CtrSection } from './ctr.config.js';
export type * from './ctr.tables.js';
export { ctrMessages } from './ctr.messages.js';
