import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { bearerToken } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { errors, success } from '../../http/schemas.js';
import { validatorCompiler } from '../../http/validation.js';
import { ImportRefusedError, type Importer } from '../../infra/import/index.js';
import { AdminHeaders, IMPORT_ERRORS_LISTED, ImportParams, ImportQuery, ImportResult } from './admin.schemas.js';
import { importErrorList } from './import-errors.js';
import { operatorOfKey, type Operator } from './api-keys.service.js';
import { NDJSON, acceptNdjsonBodies, tooLarge, withNdjsonBody } from './ndjson-body.plugin.js';

/** Big enough for a full product feed of a few hundred thousand lines. */
export const IMPORT_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

export interface AdminDeps {
  database: DatabaseHandle;
  /** The import kinds bound to their deps (src/import-kinds.ts): the same ones the CLI runs. */
  importer: Importer;
}

const unauthorized = (error?: string) =>
  new HttpError(
    401,
    'admin.unauthorized',
    {},
    { 'WWW-Authenticate': `Bearer realm="storefront-admin"${error ? `, error="${error}"` : ''}` },
  );

/**
 * The operator behind the request's bearer key; 401 when it is missing, malformed, unknown or revoked.
 * Also guards the API documents when API_DOCS=operator (app.ts).
 */
export async function authenticateOperator(db: Db, request: FastifyRequest): Promise<Operator> {
  let key: string | undefined;
  try {
    key = request.headers.authorization?.trim() ? bearerToken(request) : undefined;
  } catch {
    throw unauthorized('invalid_request');
  }
  if (key === undefined) throw unauthorized();
  const operator = await operatorOfKey(db, key, request.actionTime);
  if (operator === undefined) throw unauthorized('invalid_token');
  return operator;
}

/**
 * The back office's imports over HTTP: the same kinds and NDJSON formats as `storefront import`,
 * for an operator's API key. Not store-scoped. Everything that can be refused without the body
 * (key, kind, content type, declared length) is refused before the body is read.
 */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminDeps> = async (app, { database, importer }) => {
  acceptNdjsonBodies(app, IMPORT_BODY_LIMIT_BYTES);

  const beforeBody = async (request: FastifyRequest<{ Params: { kind: string } }>) => {
    await authenticateOperator(database.db, request);
    if (!importer.has(request.params.kind)) {
      throw new HttpError(404, 'admin.unknownImportKind', { kind: request.params.kind.slice(0, 40), kinds: importer.kinds().join(', ') });
    }
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== NDJSON) throw new HttpError(415, 'admin.unsupportedMediaType', { type: type.slice(0, 100) });
    if (Number(request.headers['content-length']) > IMPORT_BODY_LIMIT_BYTES) throw tooLarge(IMPORT_BODY_LIMIT_BYTES);
  };

  app.post(
    '/admin/import/:kind',
    {
      config: { storeScoped: false },
      onRequest: beforeBody,
      // The body is a file on disk by the time validation runs; its lines are checked by the import.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      schema: {
        tags: ['admin'],
        summary: 'Import NDJSON of the back office (one JSON object a line; formats in docs/import.md)',
        description:
          `Runs \`storefront import <kind>\` on the body (at most ${IMPORT_BODY_LIMIT_BYTES} bytes). Every line is applied in a ` +
          'transaction of its own; bad lines are skipped and listed in `errors` (the first ' +
          `${IMPORT_ERRORS_LISTED}, and a step of no line that failed always; \`errorCount\` counts them all), and the answer is still 200. ` +
          'Imports of one kind run one at a time: while one runs (in any process), another is refused with 409; ' +
          'an import that has begun runs to its end even if the client goes away. ' +
          'A product feed that would deactivate more than half of the active catalogue is refused with 409 unless `force=true`.',
        security: [{ bearer: [] }],
        params: ImportParams,
        querystring: ImportQuery,
        headers: AdminHeaders,
        body: { content: { [NDJSON]: { schema: Type.String({ description: 'NDJSON: one JSON object a line' }) } } },
        response: { 200: success(ImportResult, 'plain'), ...errors(400, 401, 404, 409, 413, 415, 500) },
      },
    },
    async (request) => {
      const run = importer.start(request.params.kind, { force: request.query.force === true });
      const listed = importErrorList();
      try {
        const summary = await withNdjsonBody(request, (file) => run(file, listed.report));
        return { lines: summary.lines, outcomes: summary.outcomes, errors: listed.errors, errorCount: listed.count() };
      } catch (error) {
        // Another import holding the kind is a refusal like the others; the reason says when to retry.
        if (error instanceof ImportRefusedError)
          throw new HttpError(409, 'admin.importRefused', { reason: error.reason(request.language) });
        throw error;
      }
    },
  );
};
