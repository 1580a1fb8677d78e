import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDocsMode } from './api-docs-mode.js';
import { withSharedErrors, type RouteShape } from './schemas.js';

export interface ApiDocsOptions {
  mode: ApiDocsMode;
  basePath: string;
  /** Refuses (throws) a request without a valid operator API key; the admin module owns the check. */
  authenticateOperator: (request: FastifyRequest) => Promise<unknown>;
  /** Paths, under BASE_PATH, of routes only operators may call: left out of the document anyone may read. */
  operatorPaths: readonly string[];
}

/**
 * The main API's OpenAPI document (`/openapi.json`) and Swagger UI (`/docs`, with its own copies
 * of the document at `/docs/json` and `/docs/yaml`). Every route that serves either sits in one
 * plugin, so one hook guards them all.
 */
export async function registerApiDocs(app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  const { mode, basePath } = options;
  if (mode === 'off') return;
  const operatorOnly = (url: string) =>
    options.operatorPaths.some((path) => url === `${basePath}${path}` || url.startsWith(`${basePath}${path}/`));
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Storefront service',
        description:
          'HTTP/JSON API of the storefront. Store-scoped routes take the `store` header (WEB, WEB2) and `x-app-language` (et, en, ru). ' +
          'Errors: 422 is an array of {field, message}; every other error is {name, message, code, status}.',
        version: '1.0',
      },
      servers: [{ url: basePath || '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Access token from /auth/login' } } },
    },
    // The routes are registered under BASE_PATH, which the server URL above already carries; the
    // operators' routes appear only in the document that operators alone may read. Every operation
    // lists the error statuses that any route taking what it takes can answer (schemas.ts).
    transform: ({ schema, url, route }) => {
      const documented = url.slice(basePath.length) || '/';
      if (mode === 'public' && operatorOnly(url)) return { schema: { ...schema, hide: true }, url: documented };
      if (schema === undefined || schema.hide === true) return { schema, url: documented };
      const shape = { ...route, schema: schema as RouteShape['schema'] & { response?: Record<string, unknown> } };
      return { schema: { ...schema, response: withSharedErrors(shape) }, url: documented };
    },
  });
  await app.register(async (docs) => {
    if (mode === 'operator') docs.addHook('onRequest', options.authenticateOperator);
    await docs.register(swaggerUi, { routePrefix: `${basePath}/docs`, staticCSP: true });
    docs.get(`${basePath}/openapi.json`, { schema: { hide: true }, config: { storeScoped: false } }, async () => app.swagger());
  });
}
