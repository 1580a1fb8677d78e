import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { authenticate, optionalPrincipal } from '../../http/auth.js';
import { attachmentDisposition } from '../../http/content-disposition.js';
import { HttpError } from '../../http/errors.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { DomainError } from '../../infra/domain-error.js';
import type { FileStore } from '../../infra/file-store/index.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import { wrongGuesses } from '../../infra/wrong-guesses.js';
import { lazyLinkSigner } from './download-link.js';
import type { DownloadsSection } from './downloads.config.js';
import {
  DirectDownloadHeaders,
  DirectDownloadParams,
  DownloadIdParams,
  DownloadLinkSchema,
  DownloadListQuery,
  DownloadSchema,
  FileBytes,
} from './downloads.schemas.js';
import { createLink, listDownloads, openDownload } from './downloads.service.js';
import { toDownloadWire, toLinkWire } from './downloads.wire.js';
import { ifNoneMatchHolds, registerNoStore } from '../../http/http-cache.js';
import { rolledBack } from '../../db/rolled-back.js';

export interface DownloadsDeps {
  database: DatabaseHandle;
  fileStore: FileStore;
  config: { downloads: DownloadsSection; basePath: string; publicUrl: string; linkGuessesPerIp: RateLimit };
}

const tags = ['downloads'];

/**
 * The logged-in client's bought files (GET /download), a signed link to one of them
 * (GET /download/{id}/link), and the file itself for whoever holds the link
 * (GET /direct-download/{token}: no bearer needed, not store-scoped, single byte ranges).
 */
export const downloadsRoutes: FastifyPluginAsyncTypebox<DownloadsDeps> = async (app, { database, fileStore, config }) => {
  const db = database.db;
  const rules = { limit: config.downloads.limit, ttlMs: config.downloads.linkTtlMs, linkBudget: config.downloads.linkBudget };
  const guesses = wrongGuesses(db, config.linkGuessesPerIp);
  const signerAt = lazyLinkSigner(db, config.downloads.linkSecret);
  registerNoStore(app);

  app.get(
    '/download',
    {
      schema: {
        tags,
        summary:
          "The logged-in client's downloadable files in this store (bought e-books and audiobooks, and what subscriptions give), paged",
        description:
          'One item per purchase or subscription take and format, newest first. What a subscription gave (POST /subscription/{id}/take) ' +
          'is listed only while the subscription gives access: not after a lapse, nor after the period end of a cancelled one, nor once ' +
          'an e-book is taken off the shelf.',
        headers: StoreRequestHeaders,
        querystring: DownloadListQuery,
        security: [{ bearer: [] }],
        response: { 200: success(Type.Array(DownloadSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(db, request);
      const page = pageRequest(request.query);
      const { items, total } = await listDownloads(
        db,
        { clientAccountId: principal.clientAccountId, storeCode: principal.storeCode },
        page,
        rules.limit,
        request.actionTime,
      );
      setPaginationHeaders(request, reply, page, total);
      return items.map(toDownloadWire);
    },
  );

  app.get(
    '/download/:id/link',
    {
      schema: {
        tags,
        summary: 'A signed link to one of the caller’s files, valid for a few minutes',
        description:
          `The link works without a bearer token until it expires (DOWNLOAD_LINK_TTL) and while it has served less than ` +
          `DOWNLOAD_LINK_BUDGET times the file's size (ranges and retries together). Its first use counts one download of the purchase; ` +
          `past DOWNLOAD_LIMIT downloads no link is given (403). An id that is not the caller's in this store is a 404.`,
        headers: StoreRequestHeaders,
        params: DownloadIdParams,
        security: [{ bearer: [] }],
        response: { 200: success(DownloadLinkSchema), ...errors(...storeRouteErrors, 401, 403, 404) },
      },
    },
    async (request) => {
      const principal = await authenticate(db, request);
      const now = request.actionTime;
      const owner = { clientAccountId: principal.clientAccountId, storeCode: principal.storeCode };
      return toLinkWire(config, await createLink(db, await signerAt(now), owner, request.params.id, rules, now));
    },
  );

  /**
   * The file of a link, or for HEAD what a GET would answer (its status and headers) without a body:
   * download managers ask first for the size and whether ranges are served. A HEAD runs the same
   * checks in a transaction rolled back at the end, so it answers exactly what the GET would (403,
   * 416, 206), and counts no download and spends none of the link's bytes.
   */
  const answerDownload = async (
    request: FastifyRequest<{ Params: Static<typeof DirectDownloadParams>; Headers: Static<typeof DirectDownloadHeaders> }>,
    reply: FastifyReply,
  ) => {
    const now = request.actionTime;
    const bearerClient = (await optionalPrincipal(db, request))?.clientAccountId;
    // The token is the credential: a tampered or made-up one counts against the address (infra/wrong-guesses.ts).
    const signed = (await signerAt(now)).verify(request.params.token);
    const link = await guesses.verified(request.ip, now, signed, () => new DomainError('forbidden', 'downloads.linkInvalid'));
    const asked = { link, bearerClient, range: request.headers.range, ifRange: request.headers['if-range'] };
    const head = request.method === 'HEAD';
    const check = (trx: Db) => openDownload(trx, asked, rules, now);
    // The bytes that answer the link, or for a HEAD whether they are there; undefined for a 416.
    const openBytes = async ({ file, range }: Awaited<ReturnType<typeof check>>): Promise<Readable | undefined> => {
      if (range.kind === 'unsatisfiable') return undefined;
      try {
        if (!head)
          return await fileStore.createReadStream(file.storageKey, range.kind === 'partial' ? { start: range.start, end: range.end } : {});
        if ((await fileStore.stat(file.storageKey)) === undefined) throw new Error(`no file under ${file.storageKey}`);
        return undefined;
      } catch (error) {
        request.log.error({ err: error, fileId: file.fileId }, 'a product file could not be read from the file store');
        throw new DomainError('unavailable', 'downloads.fileMissing');
      }
    };
    // The bytes are opened before the download is counted and before any header is set: the row names a
    // key that a replacing upload deletes once it commits (or bytes lost from the store), and a file
    // found missing is a plain 503 that counts nothing. Opened after the count, it counted a download for
    // nothing and answered the 503 with the download's headers (Content-Disposition: a browser saved the
    // error as the book). They are opened outside any transaction, from what the link serves read in one
    // rolled back (as a HEAD answers): a slow file store (S3) would otherwise hold SQLite's one connection,
    // or a pooled one and the link's lock, for its round trip. Once open, the bytes stay readable whatever
    // deletes the key.
    let opened = await rolledBack(db, check);
    // A client holding the file as it is now (If-None-Match with its ETag, or *: an app syncing its library,
    // curl --etag-compare) gets a 304, to GET as to HEAD (RFC 9110 13.1.2), once the link passed every check
    // a download would (a refusal comes first, RFC 9110 13.2.1): nothing is sent, so nothing is counted or
    // spent (the checks ran rolled back). The tag names the stored key; the bytes are not opened.
    if (ifNoneMatchHolds(request.headers['if-none-match'], opened.tag)) {
      return reply.code(304).header('ETag', opened.tag).header('Cache-Control', 'private, no-store').send();
    }
    let stream = await openBytes(opened);
    if (!head) {
      const openedKey = opened.file.storageKey;
      try {
        opened = await db.transaction().execute(check);
      } catch (error) {
        stream?.destroy();
        throw error;
      }
      // An upload replaced the file between the two reads (keys are never reused): the new one's bytes.
      if (opened.file.storageKey !== openedKey) {
        stream?.destroy();
        stream = await openBytes(opened);
      }
    }
    const { file, range, tag } = opened;
    if (range.kind === 'unsatisfiable') {
      throw new HttpError(416, 'downloads.rangeNotSatisfiable', { size: file.size }, { 'Content-Range': `bytes */${file.size}` });
    }
    const span = range.kind === 'partial' ? { start: range.start, end: range.end } : { start: 0, end: file.size - 1 };
    reply
      .header('Content-Type', file.contentType)
      .header('Content-Length', file.size === 0 ? 0 : span.end - span.start + 1)
      .header('Content-Disposition', attachmentDisposition(file.filename))
      .header('Accept-Ranges', 'bytes')
      .header('ETag', tag)
      .header('Cache-Control', 'private, no-store');
    if (range.kind === 'partial') reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    if (head) return reply.send();
    return reply.send(stream);
  };

  const directDownload = {
    config: { storeScoped: false },
    schema: {
      tags,
      summary: 'The file of a signed download link (the token is the credential)',
      description:
        'Streams the file with its Content-Type, Content-Length, Content-Disposition and ETag. One range (bytes=a-b, a- or -n) is a 206 with ' +
        'Content-Range; a range past the end (a first position of any size) is a 416 with Content-Range: bytes */size. ' +
        "A range sent with If-Range is served only when If-Range is the file's current ETag; otherwise the whole file is sent. " +
        "An If-None-Match holding the file's current ETag (or *) is a 304 with the ETag and no body, to GET and HEAD alike, counting " +
        'and spending nothing (If-Modified-Since is not evaluated: no Last-Modified is sent). ' +
        'HEAD answers what GET would, without the body, and counts and spends nothing. ' +
        'An expired or altered link, one made for another client than the bearer ' +
        'sent, one past the download limit, or one whose client was erased or removed from its company since is a 403. The first request of a link counts one download; later ones until it expires do not, ' +
        "but every request spends the bytes it is answered with from the link's budget, DOWNLOAD_LINK_BUDGET times the file's size " +
        '(3 by default: a download resumed or fetched in ranges fits many times over, a link shared with others does not): a request ' +
        'that would take the link past it is a 403 and sends nothing. A 416 spends nothing.',
      params: DirectDownloadParams,
      headers: DirectDownloadHeaders,
      security: [{}, { bearer: [] }] as Record<string, string[]>[],
      response: {
        200: success(FileBytes, 'plain'),
        206: success(FileBytes, 'plain'),
        304: Type.Null({ description: "Not Modified: the client's copy (If-None-Match) is the file's current one" }),
        ...errors(400, 401, 403, 416, 429, 500, 503),
      },
    },
  };
  // HEAD is its own route: the one Fastify would add runs the GET's handler, which counts a download.
  app.get('/direct-download/:token', { ...directDownload, exposeHeadRoute: false }, answerDownload);
  app.head('/direct-download/:token', directDownload, answerDownload);
};
