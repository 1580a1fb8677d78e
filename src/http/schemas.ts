import { Type, type TSchema } from '@sinclair/typebox';

// Shared wire shapes. Every route declares its responses with these, so validation, serialization
// and /docs all agree with what the error handler and the hooks really send.

export const ErrorSchema = Type.Object(
  {
    name: Type.String({ description: 'HTTP reason phrase' }),
    message: Type.String(),
    code: Type.Integer(),
    status: Type.Integer(),
  },
  { description: 'Error' },
);

export const FieldErrorsSchema = Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
  description: 'Validation failed: one entry per field error',
});

const header = (description: string, schema: TSchema = Type.String()) => ({ ...schema, description });

/** Headers on every response. */
const commonHeaders = {
  'action-time': header('Unix time (seconds, GMT) when the action started', Type.Integer()),
  'x-request-id': header('Id of this request in the service logs'),
  'content-language': header('Language of the messages in the body'),
};

/** Headers on responses scoped to a web store. */
const storeHeaders = {
  ...commonHeaders,
  is_active: header('Whether the web store is active: 1 or 0'),
  available_languages: header('Comma-separated languages of the web store'),
};

export const paginationHeaders = {
  'x-pagination-current-page': header('Current page, 1-based', Type.Integer()),
  'x-pagination-page-count': header('Number of pages', Type.Integer()),
  'x-pagination-per-page': header('Items per page', Type.Integer()),
  'x-pagination-total-count': header('Number of items in all pages', Type.Integer()),
  link: header('RFC 8288 links: self, first, prev, next, last'),
};

type ResponseKind = 'plain' | 'store' | 'list';

/** A success response schema with the headers that come with it, for /docs. */
export function success<T extends TSchema>(schema: T, kind: ResponseKind = 'store'): T {
  const headers = kind === 'plain' ? commonHeaders : kind === 'store' ? storeHeaders : { ...storeHeaders, ...paginationHeaders };
  return { ...schema, headers } as T;
}

const errorDescriptions: Record<number, string> = {
  400: 'Bad request: malformed JSON, parameter or header, or an unknown store',
  401: 'Authentication required or failed',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body larger than the limit',
  414: 'A path parameter longer than the limit',
  415: 'Body of a content type the route does not take (JSON unless it says otherwise)',
  423: 'Web store locked for maintenance; retry later (see Retry-After)',
  429: 'Rate limit exceeded; retry later (see Retry-After)',
  500: 'Unexpected failure',
  503: 'Temporarily unavailable',
};

/** Error responses a route can give, in the documented shapes. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const result: Record<number, TSchema> = {};
  for (const status of statuses) {
    result[status] =
      status === 422
        ? { ...FieldErrorsSchema, headers: commonHeaders }
        : { ...ErrorSchema, description: errorDescriptions[status] ?? 'Error', headers: commonHeaders };
  }
  return result;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What the statuses of sharedErrorStatuses depend on: a route's options as Fastify hands them to onRoute. */
export interface RouteShape {
  method: string | string[];
  url: string;
  schema?: { body?: unknown; querystring?: unknown; params?: unknown; headers?: unknown };
  config?: { storeScoped?: boolean };
}

/**
 * The error statuses a route can answer whatever its handler does, from what the route takes: the
 * framework, the validator and the shared hooks answer them before or around the handler. /docs
 * adds them to every operation (api-docs.ts), so a route lists by hand only its own.
 *
 * - 500: an unexpected failure, anywhere.
 * - 400: a parameter, header or query the schema refuses; a body that is not JSON; an unknown store.
 * - 414: a path parameter longer than the router takes (app.ts, maxParamLength).
 * - 413, 415: a body over the limit, or of a type no parser takes (any method that may carry one).
 * - 422: a JSON body the schema refuses.
 * - 423: a store-scoped route of a locked store.
 */
export function sharedErrorStatuses(route: RouteShape): number[] {
  const { schema = {} } = route;
  const statuses = new Set([500]);
  const pathParameters = /[:*]/.test(route.url);
  const takesBody = [route.method].flat().some((method) => BODY_METHODS.has(method));
  if (route.config?.storeScoped === true) statuses.add(400).add(423);
  if (pathParameters) statuses.add(400).add(414);
  if (schema.querystring !== undefined || schema.headers !== undefined || schema.params !== undefined) statuses.add(400);
  if (takesBody) statuses.add(400).add(413).add(415);
  // A body documented by content type (an NDJSON import) is read by its route, which lists its own 422.
  const body = schema.body as { content?: unknown } | undefined;
  if (body !== undefined && body.content === undefined) statuses.add(422);
  return [...statuses].sort((a, b) => a - b);
}

/** The route's responses with the shared error statuses added; the route's own entry of a status wins. */
export function withSharedErrors(route: RouteShape & { schema?: { response?: Record<string, unknown> } }): Record<string, unknown> {
  return { ...errors(...sharedErrorStatuses(route)), ...route.schema?.response };
}

/** Errors any store-scoped route can give before its handler runs. */
/** An amount of money on the wire: euros as a number with two decimals (the database keeps cents). */
export const Money = (description = 'Euros, two decimals') => Type.Number({ description });

export const storeRouteErrors = [400, 423, 500] as const;

/** Request headers of store-scoped routes, for validation and /docs. */
export const StoreRequestHeaders = Type.Object({
  store: Type.Optional(Type.String({ description: 'Web store code: WEB or WEB2; the configured default when absent' })),
  'x-app-language': Type.Optional(
    Type.String({
      description: 'Language to answer in: et, en or ru (a locale such as en-US or EN counts as its language); the store default otherwise',
    }),
  ),
});
