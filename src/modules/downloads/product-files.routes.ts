import { randomBytes } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { HttpError } from '../../http/errors.js';
import { errors, success } from '../../http/schemas.js';
import { validatorCompiler } from '../../http/validation.js';
import { invalidField } from '../../infra/domain-error.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { authenticateOperator } from '../admin/index.js';
import { deleteStoredFile, queueFileItems } from './download-items.jobs.js';
import { productIdByCode, saveProductFile } from './downloads.repository.js';
import { removeProductFile } from './product-files.service.js';
import { FILE_FORMATS, ProductFileParams, ProductFileQuery, ProductFileSchema, type FileFormat } from './downloads.schemas.js';

/** The largest file an operator may upload: a long audiobook fits. */
export const PRODUCT_FILE_MAX_BYTES = 4 * 1024 ** 3;
const OCTET_STREAM = 'application/octet-stream';
/**
 * A name to save the file as: letters of any alphabet (a title in Estonian or Russian), digits,
 * spaces and `._()-`, starting with a letter or digit. No path separator, quote, control or other
 * space (a line break would split the header), no `;` or `,` that a header parser reads as a
 * delimiter, no invisible format character (a right-to-left override disguises the extension).
 * The download sends it as RFC 6266 says (http/content-disposition.ts).
 */
const FILENAME = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} ._()-]{0,149}$/u;

export interface ProductFilesDeps {
  database: DatabaseHandle;
  fileStore: FileStore;
}

const tooLarge = () => new HttpError(413, 'downloads.tooLarge', { limit: PRODUCT_FILE_MAX_BYTES });

/**
 * The operators' way to attach a downloadable file to a product: PUT the bytes of one format.
 * The body streams into the file store under a new key, so a download of the previous file that is
 * under way goes on; the row then points at the new key and the old file is removed. DELETE takes
 * a format off the product (product-files.service.ts).
 */
export const productFilesRoutes: FastifyPluginAsyncTypebox<ProductFilesDeps> = async (app, { database, fileStore }) => {
  const db = database.db;
  // The raw request stream is the body: nothing is buffered in memory or parsed.
  app.addContentTypeParser(OCTET_STREAM, (_request, payload, done) => done(null, payload));

  const beforeBody = async (request: FastifyRequest) => {
    await authenticateOperator(db, request);
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== OCTET_STREAM) throw new HttpError(415, 'downloads.unsupportedMediaType', { type: type.slice(0, 100) });
    if (Number(request.headers['content-length']) > PRODUCT_FILE_MAX_BYTES) throw tooLarge();
  };

  app.put(
    '/admin/product-files/:productCode/:format',
    {
      config: { storeScoped: false },
      onRequest: beforeBody,
      bodyLimit: PRODUCT_FILE_MAX_BYTES,
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      schema: {
        tags: ['admin'],
        summary: "Uploads a product's downloadable file in one format (the body is the file, application/octet-stream)",
        description:
          `Replaces the product's file of that format. At most ${PRODUCT_FILE_MAX_BYTES} bytes. A new format reaches the ` +
          "download lists of the product's buyers and subscribers through a job, in pages (DOWNLOAD_ITEMS_BATCH); a link to it works at once.",
        params: ProductFileParams,
        querystring: ProductFileQuery,
        security: [{ bearer: [] }],
        response: { 200: success(ProductFileSchema, 'plain'), ...errors(400, 401, 404, 413, 415, 500), 422: errors(422)[422]! },
      },
    },
    async (request) => {
      const { productCode } = request.params;
      const format = request.params.format as FileFormat;
      const { contentType, extension } = FILE_FORMATS[format];
      const productId = await productIdByCode(db, productCode);
      if (productId === undefined) throw new HttpError(404, 'downloads.unknownProduct', { code: productCode.slice(0, 64) });
      // Composed (NFC): a name typed on a Mac comes decomposed, and the same name is stored one way.
      const filename = (request.query.filename ?? `${productCode}.${extension}`).normalize('NFC');
      if (!FILENAME.test(filename)) throw invalidField('filename', 'downloads.badFilename');

      const storageKey = `products/${productId}/${format.toLowerCase()}-${randomBytes(8).toString('hex')}.${extension}`;
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done(bytes > PRODUCT_FILE_MAX_BYTES ? tooLarge() : null, chunk);
        },
      });
      // A client that goes away mid-upload destroys the counter too, and the store drops its partial file.
      const upload = pipeline(request.body as Readable, counter, () => {});
      const stored = await fileStore.put(storageKey, upload);
      if (stored.size === 0) {
        await fileStore.delete(storageKey);
        throw invalidField('body', 'downloads.emptyFile');
      }
      const file = { productId, format, storageKey, contentType, size: stored.size, filename };
      let saved;
      try {
        // A new format reaches its holders' download lists through a job, in pages (download-items.jobs.ts).
        saved = await db.transaction().execute(async (trx) => {
          const row = await saveProductFile(trx, file, request.actionTime);
          if (row.created) await queueFileItems(trx, row.id, request.actionTime);
          return row;
        });
      } catch (error) {
        await fileStore.delete(storageKey);
        throw error;
      }
      // The old bytes, unless a row still refers to them (one copied by hand), as a removal's.
      if (saved.replacedKey) await deleteStoredFile({ db, fileStore }, saved.replacedKey);
      return { id: saved.id, productCode, format, contentType, size: stored.size, filename };
    },
  );

  app.delete(
    '/admin/product-files/:productCode/:format',
    {
      config: { storeScoped: false },
      onRequest: async (request) => authenticateOperator(db, request),
      schema: {
        tags: ['admin'],
        summary: "Removes a product's downloadable file in one format",
        description:
          "From then on no link is made for it and none is served, and its holders' download lists no longer show it; a job " +
          'deletes their items in pages (DOWNLOAD_ITEMS_BATCH). 404 when the product, or its file of that format, does not exist.',
        params: ProductFileParams,
        security: [{ bearer: [] }],
        response: { 204: Type.Null({ description: 'Removed' }), ...errors(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      const { productCode } = request.params;
      const format = request.params.format as FileFormat;
      const removal = await removeProductFile({ db, fileStore }, { productCode, format }, request.actionTime);
      if (removal.kind === 'unknownProduct') throw new HttpError(404, 'downloads.unknownProduct', { code: productCode.slice(0, 64) });
      if (removal.kind === 'noFile') throw new HttpError(404, 'downloads.noFile', { code: productCode.slice(0, 64), format });
      return reply.code(204).send(null);
    },
  );
};
