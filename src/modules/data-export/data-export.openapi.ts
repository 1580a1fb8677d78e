import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from '../../http/schemas.js';
import { CategorySchema, exportQuery } from './data-export.schemas.js';
import type { ExportRoute } from './export-routes.js';

type Json = Record<string, unknown>;

/** A TypeBox schema as plain JSON (TypeBox marks its objects with symbols, which JSON drops). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

/** Replaces every copy of `target` inside `schema` with a $ref to it. */
function withRef(schema: Json, target: Json, ref: string): Json {
  const targetText = JSON.stringify(target);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    if (JSON.stringify(value) === targetText) return { $ref: ref };
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, walk(child)]));
  };
  return walk(schema) as Json;
}

const header = (description: string, type: 'integer' | 'string' = 'integer') => ({ description, schema: { type } });

const PAGING_HEADERS = {
  'X-Pagination-Current-Page': header('Current page, 1-based'),
  'X-Pagination-Page-Count': header('Number of pages'),
  'X-Pagination-Per-Page': header('Items per page'),
  'X-Pagination-Total-Count': header('Number of items in all pages (counted once per filter and reused for a few seconds)'),
  Link: header('RFC 8288 links: self, first, prev, next, last', 'string'),
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A malformed parameter (page, per-page, createdFrom, createdTo, updatedFrom, updatedTo), named in the message',
  401: 'No or wrong credentials (see WWW-Authenticate)',
  403: 'The export user is disabled, or the address is not in its allowlist',
  429: 'Rate limit exceeded; retry after Retry-After seconds',
  500: 'Unexpected failure',
  503: 'A window that has ended cannot be answered whole yet: a write that may fall in it has not committed; retry after Retry-After seconds',
};

function parameters(query: TSchema): Json[] {
  const properties = plain(query).properties as Record<string, Json>;
  return Object.entries(properties).map(([name, schema]) => {
    const { description, examples, ...rest } = schema;
    const example = Array.isArray(examples) ? examples[0] : undefined;
    return { name, in: 'query', required: false, description, schema: rest, ...(example === undefined ? {} : { example }) };
  });
}

/**
 * The export API's own OpenAPI 3 document (version 1.0 as the spec labels it), written from the
 * same schemas the routes validate and serialize with, so a generated client matches the wire.
 */
export function exportOpenApi(dataExportPath: string, routes: readonly ExportRoute[]): Json {
  const category = plain(CategorySchema);
  const schemas: Record<string, Json> = { Category: category, Error: plain(ErrorSchema) };
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    schemas[route.schemaName] = withRef(plain(route.schema), category, '#/components/schemas/Category');
    const item = { $ref: `#/components/schemas/${route.schemaName}` };
    const errorResponses = Object.fromEntries(
      Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) => [
        status,
        {
          description,
          ...(status === '401' ? { headers: { 'WWW-Authenticate': header('Basic realm="data-export"', 'string') } } : {}),
          ...(status === '429' || status === '503' ? { headers: { 'Retry-After': header('Seconds to wait') } } : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ]),
    );
    paths[route.collection.path] = {
      get: {
        operationId: `list${route.schemaName}`,
        summary: route.summary,
        description:
          'A page of items ordered by creation time, then id: a page does not shift when new items arrive ' +
          '(with updatedFrom or updatedTo: by the time of their last change, then id). ' +
          'With `Accept: application/x-ndjson` every matching item is streamed instead, one JSON object a line ' +
          '(`page` and `per-page` are then ignored); a stream that fails midway ends with a line `{"error": {...}}`.',
        parameters: parameters(exportQuery(route.collection.filters)),
        responses: {
          200: {
            description: `A page of ${route.schemaName} items (a page past the end is an empty array)`,
            headers: PAGING_HEADERS,
            content: {
              'application/json': { schema: { type: 'array', items: item } },
              'application/x-ndjson': { schema: item },
            },
          },
          ...errorResponses,
        },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Storefront data export',
      version: '1.0',
      description:
        'Read-only collections for analytics. HTTP Basic as an export user. Date-times are RFC 3339 in UTC; ' +
        '`createdFrom`, `createdTo`, `updatedFrom` and `updatedTo` are `Y-m-d H:i:s` in UTC, all inclusive. Lists are bare arrays with ' +
        'X-Pagination-* and Link headers; `per-page` is 100 by default and at most 1000. Errors are ' +
        '{name, message, code, status}.',
    },
    servers: [{ url: dataExportPath }],
    security: [{ basic: [] }],
    components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } }, schemas },
    paths,
  };
}
