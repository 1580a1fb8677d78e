import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

// JSON is UTF-8 (RFC 8259 §8.1). Fastify's own parser decodes the body as UTF-8 whatever its bytes,
// so a byte that is not UTF-8 (a Latin-1 "ä" of a client that sent `charset=iso-8859-1`, a lone
// surrogate encoded as bytes) became U+FFFD and was stored: "Mari Mägi" was saved as "Mari M\uFFFDgi".
// Such a body is a 400, as an import file that is not UTF-8 is refused line by line.

/** Registers the JSON parser for the plugins registered after it: Fastify's, after a UTF-8 check. */
export function registerUtf8JsonBodies(app: FastifyInstance): void {
  // Fastify's defaults: a __proto__ or constructor.prototype key is an error (a 400).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(new HttpError(400, 'error.notUtf8'), undefined);
    return parseJson(request, bytes.toString('utf8'), done);
  });
}
