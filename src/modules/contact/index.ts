// The contact page's public surface: its routes (app.ts), its mail job (worker.ts), its command
// (main.ts), config section (config.ts), tables (schema.ts) and messages (messages.ts).
export { contactRoutes, type ContactDeps } from './contact.routes.js';
export { CONTACT_MAIL_JOB, contactMailHandler } from './contact.jobs.js';
export { CONTACT_USAGE, contactCommand } from './contact.cli.js';
export { readContactConfig, type ContactSection } from './contact.config.js';
export type * from './contact.tables.js';
export { contactMessages } from './contact.messages.js';
/** The store's office contact data: where a mail that asks the customer to write back sends their answer. */
export { findStoreContact } from './contact.repository.js';
