import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { errorBody, HttpError } from '../../http/errors.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, paginationHeaders, success } from '../../http/schemas.js';
import { exportWindow, settleWait } from './export-window.js';
import type { DataExportConfig } from './data-export.config.js';
import { exportOpenApi } from './data-export.openapi.js';
import { EXPORT_PAGING, exportQuery, type WindowQuery } from './data-export.schemas.js';
import { exportPage, exportStream, wantsNdjson } from './data-export.service.js';
import { createExportAuth, ExportCredentialsError, type ExportUser } from './export-auth.js';
import { createExportPager, DEFAULT_PAGER_OPTIONS } from './export-pager.js';
import { EXPORT_ERRORS, EXPORT_ROUTES } from './export-routes.js';
import { openWrites } from './open-writes.repository.js';
import { createReadAhead } from './read-ahead.js';
import { replicaCaughtUp, settledCut } from './settled-cut.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The export user of a data-export request, once authenticated. */
    exportUser: ExportUser | null;
  }
}

export interface DataExportDeps {
  /** Where the export reads: with DATABASE_REPLICA_URL the replica view (`replicaReads`). */
  database: DatabaseHandle;
  /** The primary's own handle, for a read the replica has not caught up for (replicaCaughtUp); `database` without one. */
  primary?: DatabaseHandle;
  config: DataExportConfig;
}

export const WWW_AUTHENTICATE = 'Basic realm="data-export", charset="UTF-8"';

/** The last line of a stream that failed midway: the status (200) is long gone. */
const STREAM_FAILURE_LINE = `${JSON.stringify({ error: errorBody(500, 'The export failed before its end; retry the request.') })}\n`;

/**
 * The read-only data-export API for the analytics partner, mounted at DATA_EXPORT_PATH beside the
 * main API: HTTP Basic as an export user, not store-scoped, and documented in its own OpenAPI
 * document (`<DATA_EXPORT_PATH>/openapi.json`) rather than the main one.
 */
export const dataExportRoutes: FastifyPluginAsyncTypebox<DataExportDeps> = async (app, { database, primary = database, config }) => {
  const db = database.db;
  app.decorateRequest('exportUser', null);
  const exportAuth = createExportAuth(db, config.dataExport);
  // A request is counted at the time it is counted (its time carried forward by the real time it has
  // taken since authenticate saw it), in the limit's window then. Counted at its own time seconds later (after
  // its settle wait, up to DATA_EXPORT_SETTLE_MS and a second), it landed in the window before, and the
  // counter, one row a key, took the count of the window begun meanwhile back to one.
  const arrived = new WeakMap<FastifyRequest, number>();
  const countedAt = (request: FastifyRequest) => request.actionTime + (Date.now() - (arrived.get(request) ?? Date.now()));
  // Credentials, and a user already past its limit refused (429) without a count: each request is
  // counted by countRequest, a read once its cut is decided (below).
  const authenticate = async (request: FastifyRequest) => {
    if (request.method === 'OPTIONS') return;
    arrived.set(request, Date.now());
    try {
      request.exportUser = await exportAuth.authenticate({
        authorization: request.headers.authorization,
        ip: request.ip,
        now: request.actionTime,
      });
    } catch (error) {
      if (error instanceof ExportCredentialsError)
        throw new HttpError(401, 'dataExport.unauthorized', {}, { 'WWW-Authenticate': WWW_AUTHENTICATE });
      throw error;
    }
  };
  // The requests counted against their user's limit, each once.
  const counted = new WeakSet<FastifyRequest>();
  /** Counts an authenticated request against its user's limit, atomically: past it a 429, and the request reads nothing. */
  const countRequest = async (request: FastifyRequest) => {
    if (request.exportUser === null || counted.has(request)) return;
    counted.add(request);
    await exportAuth.countRequest(request.exportUser, countedAt(request));
  };
  // A request answered before it was counted (a 400 for its query, a failure) counts all the same:
  // every request of a user counts once, as when the count was taken with the credentials. Before its
  // answer is sent (onSend, not onResponse): the client's next request finds it counted.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.exportUser !== null && !counted.has(request)) {
      counted.add(request);
      await exportAuth.countAnswered(request.exportUser, countedAt(request));
    }
    return payload;
  });
  const caches = {
    pager: createExportPager({ ...DEFAULT_PAGER_OPTIONS, countTtlMs: config.dataExport.countCacheTtlMs }),
    readAhead: createReadAhead(),
  };
  const document = exportOpenApi(config.dataExportPath, EXPORT_ROUTES);

  // API_DOCS: with `operator`, the document is for whom the API is (an export user, checked as for
  // the data, allowlist included), not for anyone who finds the path; with `off` it is not served.
  if (config.apiDocs !== 'off') {
    app.get(
      '/openapi.json',
      { schema: { hide: true }, ...(config.apiDocs === 'operator' ? { onRequest: [authenticate, countRequest] } : {}) },
      async () => document,
    );
  }

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
          querystring: exportQuery(collection.filters),
          response: { 200: { ...ok, headers: { ...ok.headers, ...paginationHeaders } }, ...errors(...EXPORT_ERRORS) },
        },
      },
      async (request, reply) => {
        // Real time passed since the request's time (actionTime, the app's clock), to carry that clock forward.
        const since = Date.now();
        const query = request.query as WindowQuery;
        const window = exportWindow(query, collection.filters, request.language);
        // A window that has just ended is read once it has settled (settleWait), whole.
        const wait = settleWait(window, request.actionTime, config.dataExport.settleMs);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        // The export's reads are long (a page walk, a count, a stream): on the read pool, off the event loop.
        // The cut also waits for the transactions still open (settledCut): their rows are stamped before they commit.
        // Their start on the app's clock: its time now less their age (the database's own clock may differ).
        // The request is counted against its user's limit (a 429 past it) after the first look, which took
        // the primary's WAL position the replica must have replayed (replicaCaughtUp): counted before it, the
        // count's own write was in that position, and every read from a replica waited for it to be replayed
        // (up to 0.6 s on a quiet primary with synchronous_commit off). Counted before any wait for those
        // transactions and before anything is read, so requests sent at once still read within the limit.
        const openTransactions = async () => {
          const { age, wal } = await openWrites(database);
          await countRequest(request);
          return { oldest: age === undefined ? undefined : request.actionTime + (Date.now() - since) - age, wal };
        };
        const cut = await settledCut(openTransactions, window, request.actionTime + wait, config.dataExport.settleMs);
        // A replica that has not replayed what the cut was decided on misses rows the cut shows: the primary answers then.
        const readDb = (await replicaCaughtUp(database.seesPrimaryWal, cut.wal)) ? database.readDb : primary.readDb;
        const context = { db: readDb, defaultStore: config.defaultStore, now: request.actionTime, settledUntil: cut.until };
        reply.header('Vary', 'Accept');
        if (wantsNdjson(request.headers.accept)) {
          reply.header('Content-Type', 'application/x-ndjson; charset=utf-8');
          // A proxy that buffers would hold the whole stream in memory.
          reply.header('X-Accel-Buffering', 'no');
          // The route's own serializer for the item schema (compiled once, cached by Fastify): the
          // lines match the schema exactly and cost less than JSON.stringify.
          const serialize = reply.compileSerializationSchema(route.schema) as (item: unknown) => string;
          return reply.send(exportStream(context, collection, window, { log: request.log, failureLine: STREAM_FAILURE_LINE, serialize }));
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
