import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { AppDeps } from '../../app.js';
import { pageRequest } from '../../http/paging.js';
import { errors, paginationHeaders, success } from '../../http/schemas.js';
import { setPaginationHeaders } from '../../http/paging.js';
import type { ExportCollection } from './collection.js';
import {
  clientAccountsCollection,
  salesHistoryCollection,
  sessionActionsCollection,
  shopsCollection,
} from './collections.js';
import { createdWindow } from './created-window.js';
import { exportOpenApi } from './data-export.openapi.js';
import {
  ClientAccountSchema,
  EXPORT_PAGING,
  PageQuery,
  ProductSchema,
  SalesHistorySchema,
  SessionActionSchema,
  ShopSchema,
  WindowQuery,
} from './data-export.schemas.js';
import { exportPage, exportStream, wantsNdjson } from './data-export.service.js';
import { createExportAuth } from './export-auth.js';
import { createExportPager, DEFAULT_PAGER_OPTIONS } from './export-pager.js';
import { productsCollection } from './products.export.js';
import { createReadAhead } from './read-ahead.js';

/** A route of the export API: its collection, the item schema (and its name in the API document). */
export interface ExportRoute {
  collection: ExportCollection;
  schema: TSchema;
  schemaName: string;
  summary: string;
}

export const EXPORT_ROUTES: readonly ExportRoute[] = [
  { collection: clientAccountsCollection, schema: ClientAccountSchema, schemaName: 'ClientAccount', summary: 'Client accounts created in a window' },
  { collection: productsCollection, schema: ProductSchema, schemaName: 'Product', summary: 'Products, active or not' },
  { collection: salesHistoryCollection, schema: SalesHistorySchema, schemaName: 'SalesHistory', summary: 'Orders (web and shop sales) received in a window' },
  { collection: sessionActionsCollection, schema: SessionActionSchema, schemaName: 'SessionAction', summary: 'Session actions: views, wishlist and basket additions' },
  { collection: shopsCollection, schema: ShopSchema, schemaName: 'Shop', summary: 'Physical shops' },
] as ExportRoute[];

export const EXPORT_ERRORS = [400, 401, 403, 429, 500] as const;

/**
 * The read-only data-export API for the analytics partner, mounted at DATA_EXPORT_PATH beside the
 * main API: HTTP Basic as an export user, not store-scoped, and documented in its own OpenAPI
 * document (`<DATA_EXPORT_PATH>/openapi.json`) rather than the main one.
 */
export const dataExportRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database, config }) => {
  const db = database.db;
  app.decorateRequest('exportUser', null);
  const authenticate = createExportAuth(db, config.dataExport);
  const caches = {
    pager: createExportPager({ ...DEFAULT_PAGER_OPTIONS, countTtlMs: config.dataExport.countCacheTtlMs }),
    readAhead: createReadAhead(),
  };
  const document = exportOpenApi(config.dataExportPath, EXPORT_ROUTES);

  app.get('/openapi.json', { schema: { hide: true } }, async () => document);

  for (const route of EXPORT_ROUTES) {
    const { collection } = route;
    const ok = success(Type.Array(route.schema), 'plain') as unknown as TSchema & { headers: Record<string, unknown> };
    app.get(
      collection.path,
      {
        onRequest: authenticate,
        schema: {
          // Documented in the export's own document, not in the main API's.
          hide: true,
          querystring: collection.filterable ? WindowQuery : PageQuery,
          response: { 200: { ...ok, headers: { ...ok.headers, ...paginationHeaders } }, ...errors(...EXPORT_ERRORS) },
        },
      },
      async (request, reply) => {
        const query = request.query as WindowQuery;
        const window = collection.filterable ? createdWindow(query, request.language) : {};
        const context = { db, config, now: request.actionTime };
        reply.header('Vary', 'Accept');
        if (wantsNdjson(request.headers.accept)) {
          reply.header('Content-Type', 'application/x-ndjson; charset=utf-8');
          // A proxy that buffers would hold the whole stream in memory.
          reply.header('X-Accel-Buffering', 'no');
          // The route's own serializer for the item schema (compiled once, cached by Fastify): the
          // lines match the schema exactly and cost less than JSON.stringify.
          const serialize = reply.compileSerializationSchema(route.schema) as (item: unknown) => string;
          return reply.send(exportStream(context, collection, window, request.log, serialize));
        }
        const page = pageRequest(query, EXPORT_PAGING);
        const result = await exportPage(context, caches, collection, window, page);
        setPaginationHeaders(request, reply, page, result.total);
        // Serialized by the route's schema as usual, then sent as bytes: a page is up to ~300 KB,
        // and encoding it here is markedly cheaper than the socket's write encoding a string.
        return reply.type('application/json; charset=utf-8').send(Buffer.from(reply.serialize(result.items) as string));
      },
    );
  }
};
