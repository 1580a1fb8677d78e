import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { inTransactionRetryingOnUniqueViolation } from '../../db/unique-violation.js';
import { FieldValidationError, HttpError } from '../../http/errors.js';
import { asLineEditError, lineFieldError } from '../../http/line-errors.js';
import { errors, success } from '../../http/schemas.js';
import { authenticateOperator } from '../admin/index.js';
import { contentKinds } from './content-kinds.js';
import { lineBodyCheck } from './line-body-check.js';
import type { HitCounter } from './redirect-hits.js';
import { redirectByCode } from './redirect.repository.js';

const Params = Type.Object({ kind: Type.String({ maxLength: 40 }), code: Type.String({ minLength: 1, maxLength: 40 }) });
const Outcome = Type.Object({ kind: Type.String(), code: Type.String(), outcome: Type.String() });

/**
 * Single edits of the module's kinds for an operator's API key: PUT takes the import line's
 * object (the code from the path), DELETE removes the record; GET of a redirect shows its hits.
 */
export const contentAdminRoutes: FastifyPluginAsyncTypebox<{ database: DatabaseHandle; hits: HitCounter }> = async (
  app,
  { database, hits },
) => {
  const db = database.db;
  const kindOf = (name: string) => {
    if (!Object.hasOwn(contentKinds, name)) {
      throw new HttpError(404, 'blog.unknownContentKind', { kind: name.slice(0, 40), kinds: Object.keys(contentKinds).join(', ') });
    }
    return contentKinds[name]!;
  };
  const bodyChecks = new Map(Object.values(contentKinds).map((kind) => [kind, lineBodyCheck(kind.schema)]));
  const config = { storeScoped: false };
  const security = [{ bearer: [] }];

  app.put(
    '/admin/content/:kind/:code',
    {
      config,
      onRequest: async (request) => void (await authenticateOperator(db, request)),
      schema: {
        tags: ['admin'],
        summary: 'Create or replace one blog post, blog category, news item, redirect or shop schedule (the import line as the body)',
        security,
        params: Params,
        body: Type.Object({}, { additionalProperties: true }),
        response: { 200: success(Outcome, 'plain'), ...errors(400, 401, 404, 415, 422) },
      },
    },
    async (request) => {
      const kind = kindOf(request.params.kind);
      const line = { ...request.body, [kind.codeField]: request.params.code };
      const faults = bodyChecks.get(kind)!(line, request.language);
      if (faults.length > 0) throw new FieldValidationError(faults);
      try {
        // The schema's check above has passed, so the parser's own finds nothing more (should the two
        // validators ever disagree, its English words are answered): what is left are the kind's rules.
        const parsed = kind.parse(line);
        if ('error' in parsed) throw new FieldValidationError([lineFieldError(parsed.error)]);
        // The same PUT twice at once: the second runs again and finds the first's item.
        const outcome = await inTransactionRetryingOnUniqueViolation(db, (trx) => kind.apply(trx, parsed.record, request.actionTime));
        return { kind: request.params.kind, code: request.params.code, outcome };
      } catch (error) {
        throw asLineEditError(error);
      }
    },
  );

  app.delete(
    '/admin/content/:kind/:code',
    {
      config,
      onRequest: async (request) => void (await authenticateOperator(db, request)),
      schema: {
        tags: ['admin'],
        summary: 'Delete one record of a content kind',
        security,
        params: Params,
        response: { 200: success(Outcome, 'plain'), ...errors(401, 404) },
      },
    },
    async (request) => {
      const kind = kindOf(request.params.kind);
      const deleted = await db.transaction().execute((trx) => kind.remove(trx, request.params.code));
      if (!deleted) throw new HttpError(404, 'blog.contentNotFound', { kind: request.params.kind, code: request.params.code });
      return { kind: request.params.kind, code: request.params.code, outcome: 'deleted' };
    },
  );

  app.get(
    '/admin/content/redirects/:code',
    {
      config,
      onRequest: async (request) => void (await authenticateOperator(db, request)),
      schema: {
        tags: ['admin'],
        summary: 'One redirect with its hit count (counts not yet written are written first)',
        security,
        params: Type.Object({ code: Type.String({ minLength: 1, maxLength: 40 }) }),
        response: {
          200: success(
            Type.Object({
              code: Type.String(),
              store: Type.String(),
              path: Type.String(),
              target: Type.String(),
              status: Type.Integer(),
              active: Type.Boolean(),
              hits: Type.Integer(),
              lastHitAt: Type.Union([Type.String(), Type.Null()]),
            }),
            'plain',
          ),
          ...errors(401, 404),
        },
      },
    },
    async (request) => {
      await hits.flush();
      const row = await redirectByCode(db, request.params.code);
      if (!row) throw new HttpError(404, 'blog.contentNotFound', { kind: 'redirects', code: request.params.code });
      return {
        code: row.code,
        store: row.store_code,
        path: row.path,
        target: row.target,
        status: row.status,
        active: Boolean(row.is_active),
        hits: Number(row.hits),
        lastHitAt: row.last_hit_at === null ? null : toRfc3339(row.last_hit_at),
      };
    },
  );
};
