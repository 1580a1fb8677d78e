import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { translate, type Language } from '../i18n/index.js';
import { DomainError, InvalidInputError, type DomainErrorKind } from '../infra/domain-error.js';
import { errorBody, FieldValidationError, HttpError, translatedErrorBody } from './errors.js';
import { loggedRequest } from './request-log.js';
import { toFieldErrors } from './validation.js';

const BODY_LIMIT_BYTES = 1024 * 1024;

/** The one place a domain error becomes an HTTP status. */
const STATUS_OF: Record<DomainErrorKind, number> = {
  'bad-request': 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  'too-large': 413,
  unsupported: 415,
  locked: 423,
  'rate-limited': 429,
  unavailable: 503,
};

/**
 * Every error leaves in the documented shape: a 422 is an array of {field, message}; anything else
 * is {name, message, code, status}. A 5xx body never carries internals; the log has them under the
 * request id.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError | FieldValidationError | DomainError | InvalidInputError, request, reply) => {
    if (error instanceof DomainError) {
      if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
      // A 401 names the scheme that would be accepted (RFC 9110 11.6.1), as the token check's own 401 does.
      if (error.kind === 'unauthenticated' && !reply.hasHeader('www-authenticate'))
        reply.header('WWW-Authenticate', 'Bearer realm="storefront"');
      const status = STATUS_OF[error.kind];
      return reply.code(status).send(errorBody(status, translate(request.language, error.messageKey, error.params), error.code));
    }
    if (error instanceof InvalidInputError) {
      return reply
        .code(422)
        .send(error.fields.map((f) => ({ field: f.field, message: translate(request.language, f.messageKey, f.params) })));
    }
    if (error instanceof HttpError) {
      reply.headers(error.headers);
      return reply.code(error.status).send(translatedErrorBody(request.language, error));
    }
    if (error instanceof FieldValidationError) return reply.code(422).send(error.errors);
    return handleFrameworkError(error, request, reply);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!.slice(0, 200);
    const message = translate(request.language, 'error.routeNotFound', { method: request.method, path });
    return reply.code(404).send(errorBody(404, message));
  });
}

function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const language = request.language;
  const fail = (status: number, message: string) => reply.code(status).send(errorBody(status, message));

  if (error.validation) {
    const context = error.validationContext;
    const first = error.validation[0];
    if (context === 'body') {
      // A body that is not an object at all (an array, a string) has no fields to report.
      if (first && first.instancePath === '' && first.keyword === 'type') return fail(400, translate(language, 'error.bodyNotObject'));
      return reply.code(422).send(toFieldErrors(error.validation as never, language));
    }
    const [fieldError] = toFieldErrors(error.validation as never, language);
    const key = context === 'headers' ? 'error.badHeader' : 'error.badParameter';
    return fail(400, translate(language, key, { field: fieldError?.field ?? '', reason: fieldError?.message ?? '' }));
  }

  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return fail(
        415,
        translate(language, 'error.unsupportedMediaType', { type: String(request.headers['content-type'] ?? '').slice(0, 100) }),
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fail(413, translate(language, 'error.bodyTooLarge', { limit: BODY_LIMIT_BYTES }));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fail(400, translate(language, 'error.emptyJson'));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return fail(400, translate(language, 'error.invalidJson'));
  }
  if (error instanceof SyntaxError && error.statusCode === 400) return fail(400, translate(language, 'error.invalidJson'));

  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return fail(status, error.message);
  request.log.error({ err: error }, 'request failed');
  return fail(status === 503 ? 503 : 500, translate(language, status === 503 ? 'error.serviceUnavailable' : 'error.internal'));
}

/**
 * Fastify's `frameworkErrors`: a URL it cannot route (malformed percent-encoding, an over-long path
 * parameter) is answered before any hook runs. Without this the answer is Fastify's own shape,
 * echoes the URL, and lacks the headers every other answer has; and the request is not logged.
 * What the hooks give every other answer is given here: `start` (the request context hook's first
 * step: fixed headers, request id, action time, language) and `perRequest`'s (the CORS headers):
 * without them a browser on an allowed origin could not read the 400 at all.
 */
export function answerFrameworkError(
  start: (request: FastifyRequest, reply: FastifyReply) => void,
  perRequest: (request: FastifyRequest) => Record<string, string> = () => ({}),
) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
    request.log.info({ ...loggedRequest(request), statusCode: status, code: error.code }, 'request');
    start(request, reply);
    void reply
      .headers(perRequest(request))
      .code(status)
      .send(errorBody(status, translate(request.language, 'error.badUrl')));
  };
}

/**
 * Fastify's `clientErrorHandler`: what Node cannot parse as an HTTP request (a malformed request
 * line or header, headers or a URL over Node's limit, a request that never finished arriving) is
 * answered on the socket before there is a request. Fastify's default answers in its own shape,
 * without the headers every other answer has; this answers in the documented one, in the default
 * language, and closes the connection (nothing after the bad bytes can be trusted).
 */
export function answerClientError(headers: Record<string, string>, language: Language) {
  const fixed = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A connection reset leaves nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, key] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ([408, 'error.requestTimeout'] as const)
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? ([431, 'error.headersTooLarge'] as const)
          : ([400, 'error.badHttp'] as const);
    const body = JSON.stringify(errorBody(status, translate(language, key)));
    if (socket.writable)
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${fixed}content-type: application/json; charset=utf-8\r\n` +
          `content-language: ${language}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    socket.destroy(error);
  };
}

export { BODY_LIMIT_BYTES };
