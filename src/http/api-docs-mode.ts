/**
 * Who is served the API documents (`API_DOCS`): `public` everyone (the default, for development
 * and for shops that publish their API), `operator` only callers with an operator API key (the
 * data-export document: its export users), `off` nobody (404, as for a path that does not exist).
 * A file of its own, free of Fastify, so that reading the configuration loads no HTTP code.
 */
export const API_DOCS_MODES = ['public', 'operator', 'off'] as const;
export type ApiDocsMode = (typeof API_DOCS_MODES)[number];
