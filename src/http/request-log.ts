import type { FastifyInstance } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

// What the logs may say about a request. Single-use tokens travel in query strings (password
// reset, email verification, the social providers' code and state, app sign-in ID tokens), and
// whoever reads the log must not be able to replay them. So a request is logged by its route
// pattern (`/product/:id`, never the values of path parameters) and its query keys; a query value
// is kept only for the few keys below, which carry nothing personal or secret and help reading
// the log (which page, how many, which provider). Everything else, search terms included (people
// search for names and addresses), is replaced.

/** Query keys whose values are logged as sent. */
const LOGGED_VALUES = new Set(['page', 'per-page', 'sort', 'limit', 'authclient', 'force']);
const REDACTED = '[redacted]';
const MAX_KEYS = 20;
const MAX_LENGTH = 40;

/** The request as the logs show it: method, route pattern and redacted query. */
export interface LoggedRequest {
  method: string;
  /** The route pattern; the path (token-like segments replaced) when no route matched. */
  route: string;
  query?: string;
}

interface RequestLike {
  method?: string;
  url?: string;
  routeOptions?: { url?: string };
}

export function loggedRequest(request: RequestLike): LoggedRequest {
  const url = typeof request.url === 'string' ? request.url : '';
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const route = request.routeOptions?.url ?? unmatchedPath(path);
  const query = mark < 0 ? undefined : redactedQuery(url.slice(mark + 1));
  return { method: String(request.method ?? ''), route, ...(query ? { query } : {}) };
}

/** `a=1&token=xyz&b` as `a=1&token=[redacted]&b`, values kept only for the harmless keys. */
export function redactedQuery(query: string): string {
  const parts = query.split('&').filter((part) => part !== '');
  const shown = parts.slice(0, MAX_KEYS).map((part) => {
    const equals = part.indexOf('=');
    const key = safeText(equals < 0 ? part : part.slice(0, equals));
    if (equals < 0) return key;
    const value = part.slice(equals + 1);
    return `${key}=${LOGGED_VALUES.has(key) ? safeText(value) : REDACTED}`;
  });
  if (parts.length > MAX_KEYS) shown.push(`(${parts.length - MAX_KEYS} more)`);
  return shown.join('&');
}

/**
 * No route matched, so there is no pattern: the path as sent, shortened, with any segment that
 * looks like a token or a long identifier replaced (a client calling a wrong path may still put a
 * token in it).
 */
function unmatchedPath(path: string): string {
  return path
    .slice(0, 200)
    .split('/')
    .map((segment) => (segment.length >= 16 || /\d{6,}/.test(segment) ? ':redacted' : segment))
    .join('/');
}

function safeText(text: string): string {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // Malformed escapes are logged as sent.
  }
  const clean = decoded.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > MAX_LENGTH ? `${clean.slice(0, MAX_LENGTH)}...` : clean;
}

/** Replaces the values of query strings in free text (error messages and stacks can quote a URL). */
export function withoutQueryValues(text: string): string {
  return text.replace(/([?&][^=&\s#"'<>]{1,100})=[^&\s#"'<>]*/g, `$1=${REDACTED}`);
}

/**
 * Serializers for the process's logger: any line that carries a request (`{ req }`, as Fastify's
 * own lines do) shows it as above, without headers; an error's message and stack lose the values
 * of any query string they quote.
 */
export const logSerializers = {
  req: (request: RequestLike): Record<string, unknown> => ({ ...loggedRequest(request) }),
  err: (error: Error): ReturnType<typeof stdSerializers.err> => {
    const plain = stdSerializers.err(error);
    for (const [key, value] of Object.entries(plain)) {
      if (typeof value === 'string') plain[key] = withoutQueryValues(value);
    }
    return plain;
  },
};

/**
 * Paths the logger censors wherever a line carries them: credentials in headers, and the fields
 * that hold a password or a token in the bodies some lines may quote. Fixed paths only: a
 * wildcard (`*.password`) costs microseconds on every line, more than the line itself.
 */
export const LOG_REDACT_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'body.password',
  'body.token',
  'body.idToken',
  'body.accessToken',
  'password',
  'token',
  'idToken',
  'accessToken',
];

/** The logger options every process uses (the API's and the worker's): serializers and redaction. */
export const LOG_PRIVACY = {
  serializers: logSerializers,
  redact: { paths: LOG_REDACT_PATHS, censor: REDACTED },
};

/** A process's logger (the API's, the worker's, a command's): LOG_PRIVACY on `destination`, else stdout. */
export function privateLogger(level: string, destination: DestinationStream | undefined): Logger {
  const options = { level, ...LOG_PRIVACY };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * One line per answered request: method, route, redacted query, status and time (no URL, no headers).
 * A callback hook that builds the line only when `info` is written: with the level above it (a
 * load test's `warn`) the line's object and the async hook's promise cost every request for nothing.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    if ((request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') !== false)
      request.log.info({ ...loggedRequest(request), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
}
