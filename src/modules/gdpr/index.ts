// The gdpr module's public surface ("your data"): its routes, the CLI command, its messages and
// the registry of the parts every module contributes.
export { gdprRoutes, type GdprDeps } from './gdpr.routes.js';
export { GDPR_USAGE, gdprCommand } from './gdpr.cli.js';
export { gdprMessages } from './gdpr.messages.js';
export { personalDataParts } from './personal-data-parts.js';
