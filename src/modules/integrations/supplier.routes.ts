import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { HttpError } from '../../http/errors.js';
import { errors, success } from '../../http/schemas.js';
import { validatorCompiler } from '../../http/validation.js';
import type { Clock } from '../../infra/clock.js';
import { ImportRefusedError } from '../../infra/import/index.js';
import { addressKey } from '../../infra/address-key.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { acceptNdjsonBodies, importErrorList, ImportResult, NDJSON, tooLarge, withNdjsonBody } from '../admin/index.js';
import type { IntegrationsSection } from './integrations.config.js';
import { MAX_AGE_SECONDS, sameSignature, signFile, SIGNATURE_HEADER, staleTimestamp, TIMESTAMP_HEADER } from './signature.js';
import { isSupplierFeedKind, runSupplierFeed, SUPPLIER_FEED_KINDS } from './supplier-feeds.js';
import { findSupplierByCode, recordSignature, type SupplierRow } from './suppliers.repository.js';
import { SUPPLIER_CODE } from './suppliers.service.js';

/** A supplier's feed is smaller than the back office's full one; bigger ones are refused with 413. */
export const SUPPLIER_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface SupplierRoutesDeps {
  database: DatabaseHandle;
  clock: Clock;
  config: IntegrationsSection;
}

type Refusal =
  'integrations.badSignature' | 'integrations.timestampMissing' | 'integrations.timestampTooOld' | 'integrations.timestampAhead';

const STALE: Record<'missing' | 'too-old' | 'in-the-future', Refusal> = {
  missing: 'integrations.timestampMissing',
  'too-old': 'integrations.timestampTooOld',
  'in-the-future': 'integrations.timestampAhead',
};

const unauthorized = (key: Refusal) =>
  new HttpError(401, key, {}, { 'WWW-Authenticate': 'HMAC-SHA256 realm="storefront-supplier", headers="x-timestamp x-signature"' });

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
};

const Params = Type.Object({
  code: Type.String({ maxLength: 40, description: 'The supplier code (`supplier add`)' }),
  kind: Type.String({ maxLength: 20, description: `The feed: ${SUPPLIER_FEED_KINDS.join(', ')}` }),
});

const Headers = Type.Object({
  'x-timestamp': Type.Optional(Type.String({ description: 'Unix seconds when the request was signed' })),
  'x-signature': Type.Optional(Type.String({ description: 'HMAC-SHA256 hex of `<x-timestamp>.<body>` with the supplier secret' })),
});

/**
 * Suppliers push their feeds here, signed with their secret. Everything that can be refused
 * without the body (address rate limit, kind, timestamp, type, declared size, unknown supplier) is
 * refused before the body is read, with the same answers for a known and an unknown supplier code;
 * the signature is checked over the body before anything else. Only then does the supplier's own
 * kill switch and rate limit answer: an unsigned request tells nobody who is a supplier and
 * spends nothing of a supplier's count.
 */
export const supplierRoutes: FastifyPluginAsyncTypebox<SupplierRoutesDeps> = async (app, { database, clock, config }) => {
  const { db } = database;
  acceptNdjsonBodies(app, SUPPLIER_BODY_LIMIT_BYTES);
  const suppliers = new WeakMap<FastifyRequest, SupplierRow>();

  const beforeBody = async (request: FastifyRequest<{ Params: { code: string; kind: string } }>) => {
    const { code, kind } = request.params;
    await consumeRateLimit(db, `supplier:ip:${addressKey(request.ip)}`, config.supplierAddressRateLimit, request.actionTime);
    if (!isSupplierFeedKind(kind)) throw new HttpError(404, 'integrations.unknownFeedKind', { kind: kind.slice(0, 20) });
    const stale = staleTimestamp(header(request, TIMESTAMP_HEADER), request.actionTime);
    if (stale) throw unauthorized(STALE[stale]);
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== NDJSON) throw new HttpError(415, 'admin.unsupportedMediaType', { type: type.slice(0, 100) });
    if (Number(request.headers['content-length']) > SUPPLIER_BODY_LIMIT_BYTES) throw tooLarge(SUPPLIER_BODY_LIMIT_BYTES);
    // An unknown supplier answers like a bad signature: the path does not tell who is a supplier.
    // The path is not validated yet (this runs before the schema): a code no supplier can have is
    // not looked up (a NUL character in it failed the query on PostgreSQL, a 500).
    const supplier = SUPPLIER_CODE.test(code) ? await findSupplierByCode(db, code) : undefined;
    if (!supplier) throw unauthorized('integrations.badSignature');
    suppliers.set(request, supplier);
  };

  app.post(
    '/integration/supplier/:code/:kind',
    {
      config: { storeScoped: false },
      onRequest: beforeBody,
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      schema: {
        tags: ['integrations'],
        summary: "A supplier's feed: stock, prices or products of its own products (NDJSON, formats in docs/import.md)",
        description:
          `Signed: \`X-Timestamp\` (Unix seconds, at most ${MAX_AGE_SECONDS} s old) and \`X-Signature\`, the HMAC-SHA256 hex of ` +
          '`<timestamp>.<body>` with the supplier secret; a request is accepted once. Lines about products of the back ' +
          "office or of other suppliers are bad lines. A products feed deactivates the supplier's active products it does " +
          'not list, and is refused with 409 when that would be more than half of them. ' +
          `At most ${SUPPLIER_BODY_LIMIT_BYTES} bytes (413). The answer is the imports' (docs/integrations.md).`,
        params: Params,
        headers: Headers,
        body: { content: { [NDJSON]: { schema: Type.String({ description: 'NDJSON: one JSON object a line' }) } } },
        response: { 200: success(ImportResult, 'plain'), ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500) },
      },
    },
    async (request) => {
      const supplier = suppliers.get(request)!;
      const listed = importErrorList();
      const timestamp = header(request, TIMESTAMP_HEADER)!;
      const given = (header(request, SIGNATURE_HEADER) ?? '').toLowerCase();
      try {
        const summary = await withNdjsonBody(request, async (file) => {
          if (!sameSignature(await signFile(supplier.secret, timestamp, file), given)) throw unauthorized('integrations.badSignature');
          const now = request.actionTime;
          if (supplier.disabled_at !== null) throw new HttpError(403, 'integrations.supplierDisabled');
          const kind = request.params.kind;
          if (!isSupplierFeedKind(kind)) throw new HttpError(404, 'integrations.unknownFeedKind', { kind });
          // A replay first: a copy of a signed request is not the supplier's, and spends none of its count.
          // One transaction: a request refused for the count (429) leaves its signature unrecorded, as
          // a refused request changes nothing, and the supplier may send it again once the window ends.
          // Under the kind's lock: a feed refused because another of its kind runs (409, "after ...")
          // changed nothing either, and its client sending the same request again was refused as a replay.
          const admit = () =>
            db.transaction().execute(async (trx) => {
              if (!(await recordSignature(trx, supplier.id, given, now, now - 2 * (MAX_AGE_SECONDS * 1000)))) {
                throw new HttpError(409, 'integrations.replayed');
              }
              await consumeRateLimit(trx, `supplier:${supplier.id}`, config.supplierRateLimit, now);
            });
          return runSupplierFeed({ db, clock, log: request.log }, supplier, kind, file, listed.report, admit);
        });
        return { lines: summary.lines, outcomes: summary.outcomes, errors: listed.errors, errorCount: listed.count() };
      } catch (error) {
        // Another import holding the kind is a refusal like the others; the reason says when to retry (as the admin import's).
        if (error instanceof ImportRefusedError)
          throw new HttpError(409, 'admin.importRefused', { reason: error.reason(request.language) });
        throw error;
      }
    },
  );
};
