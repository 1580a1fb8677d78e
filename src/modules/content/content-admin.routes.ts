import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { inTransactionRetryingOnUniqueViolation } from '../../db/unique-violation.js';
import { asLineEditError } from '../../http/line-errors.js';
import { errors, success } from '../../http/schemas.js';
import { notFound } from '../../infra/domain-error.js';
import { authenticateOperator } from '../admin/index.js';
import { Code } from '../catalogue-import/index.js';
import { CONTENT_KINDS, type ContentKind } from './content-kinds.js';
import { deleteByCode } from './content-write.repository.js';

// Single edits by operators (operator API key, not store-scoped): `PUT /admin/content/<kind>/{code}`
// upserts one item in the format of its import line without the code, `DELETE` removes it.

const CodeParams = Type.Object({ code: Code() });
const SaveResult = Type.Object({
  code: Type.String(),
  outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')]),
});

export const contentAdminRoutes: FastifyPluginAsyncTypebox<{ database: DatabaseHandle }> = async (app, { database }) => {
  const db = database.db;
  const operator = async (request: FastifyRequest) => {
    await authenticateOperator(db, request);
  };

  for (const [name, definition] of Object.entries(CONTENT_KINDS) as Array<[string, ContentKind<TObject>]>) {
    app.put(
      `/admin/content/${name}/:code`,
      {
        config: { storeScoped: false },
        onRequest: operator,
        schema: {
          tags: ['admin'],
          summary: `Create or replace one ${definition.noun} (the format of \`import ${name}\` without the code; docs/import.md)`,
          security: [{ bearer: [] }],
          params: CodeParams,
          body: definition.body,
          response: { 200: success(SaveResult, 'plain'), ...errors(400, 401, 415, 422, 500) },
        },
      },
      async (request) => {
        const { code } = request.params as { code: string };
        try {
          // The same PUT twice at once: the second runs again and finds the first's item (or its slug taken).
          const outcome = await inTransactionRetryingOnUniqueViolation(db, (trx) =>
            definition.save(trx, code, request.body as never, request.actionTime),
          );
          return { code, outcome };
        } catch (error) {
          // A rule the schema cannot say (visibleTo after visibleFrom): a 422 on its field, in the caller's language.
          throw asLineEditError(error);
        }
      },
    );
    app.delete(
      `/admin/content/${name}/:code`,
      {
        config: { storeScoped: false },
        onRequest: operator,
        schema: {
          tags: ['admin'],
          summary: `Delete one ${definition.noun}`,
          security: [{ bearer: [] }],
          params: CodeParams,
          response: { 204: Type.Null(), ...errors(400, 401, 404, 500) },
        },
      },
      async (request, reply) => {
        const { code } = request.params as { code: string };
        const deleted = await db.transaction().execute((trx) => deleteByCode(trx, definition.table, code));
        if (!deleted) throw notFound('content.itemNotFound', { kind: definition.noun, code });
        return reply.code(204).send(null);
      },
    );
  }
};
