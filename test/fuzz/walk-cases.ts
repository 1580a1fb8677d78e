import { STATUS_CODES } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/app.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { badRequests, type BadRequest, type Operation } from '../http/bad-input-cases.js';
import { fieldEdges, headerEdges, parameterEdges, resolved, sampleOf, toJson, typeOf, type Schema } from './edge-values.js';

// The cases of the credentialed walk (credentialed-walk.test.ts): who calls, what they own, how an
// operation's valid request is made for them, the same request with one part at an edge, and how
// an answer is judged.

const LEAKS = [
  /\n\s+at [\w$.<>]+ \(|node_modules\/|\.ts:\d+:\d+/,
  /SQLITE_|syntax error at|violates \w+ constraint|out of range for type|invalid input syntax|value too long for type|index row size|for index "|relation "\w+"/i,
  /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|SqliteError|DatabaseError):/,
];

/** What a caller owns, read when a request is made (a refresh after an accepted delete replaces it). */
export interface Own {
  token: string;
  paymentMethodId?: string;
  addressId?: number;
  orderCode?: string;
  orderQuery?: Record<string, string>;
  employeeId?: number;
  subCompanyId?: number;
}

export interface Caller {
  name: string;
  own: Own;
  headers(): Record<string, string>;
  /** A fresh caller after an accepted write that may have used this one up (logged out, deleted). */
  refresh?(): Promise<void>;
}

/** How an operation's valid request is made for a caller: its path and query values, its body, a step before. */
export interface Base {
  path?(own: Own): Record<string, string>;
  query?(own: Own): Record<string, string>;
  body?(own: Own): Record<string, unknown>;
  /** The schema of a body the document leaves open (the content kinds' PUT takes an import line). */
  bodySchema?: Schema;
  /** Runs before each request (puts a book in the basket that checkout empties). */
  before?(caller: Caller): Promise<void>;
  /** Its path names something the caller owns: with another company's ids it must be refused. */
  owned?: boolean;
}

interface Field {
  path: Array<string | number>;
  schema: Schema;
}

/** The fields of a body schema, nested objects and the first item of arrays of objects included. */
function fieldsOf(schema: Schema, root: Schema, path: Array<string | number> = []): Field[] {
  const fields: Field[] = [];
  for (const [name, property] of Object.entries((resolved(schema, root).properties ?? {}) as Record<string, Schema>)) {
    const child = resolved(property, root);
    fields.push({ path: [...path, name], schema: child });
    if (path.length >= 3) continue;
    if (typeOf(child) === 'object') fields.push(...fieldsOf(child, root, [...path, name]));
    const items = typeOf(child) === 'array' ? resolved(child.items as Schema, root) : undefined;
    if (items && typeOf(items) === 'object') fields.push(...fieldsOf(items, root, [...path, name, 0]));
  }
  return fields;
}

/** The valid body with `value` at `path`; a missing parent is a valid sample of its schema. */
function withValue(body: unknown, schema: Schema, root: Schema, path: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  let nodeSchema = resolved(schema, root);
  for (const key of path.slice(0, -1)) {
    nodeSchema =
      typeof key === 'number'
        ? resolved(nodeSchema.items as Schema, root)
        : resolved((nodeSchema.properties as Record<string, Schema>)[key], root);
    if (node[key] === null || typeof node[key] !== 'object') node[key] = sampleOf(nodeSchema, root);
    node = node[key] as Record<string | number, unknown>;
  }
  node[path.at(-1)!] = value;
  return copy;
}

export const FOREIGN = "ids of another company's master";
const VALID = 'the valid request';
export const ALWAYS = new Set([VALID, FOREIGN]);

/** One case of the walk: its label, and its request for the caller as it is when the case is sent. */
export interface Case {
  label: string;
  request(own: Own): BadRequest;
}

/** The valid request of an operation for a caller, with one part replaced (a path value, query values, a body). */
function baseRequest(operation: Operation, root: Schema, base: Base, own: Own, path: Record<string, string> = {}): BadRequest {
  const template = Object.entries(path).reduce((p, [key, value]) => p.replace(`{${key}}`, encodeURIComponent(value)), operation.path);
  const [valid] = badRequests({ ...operation, path: template }, root, {
    depth: 'minimal',
    pathValues: base.path?.(own),
    bodyValues: base.body?.(own),
  });
  const url = new URL(valid!.url, 'http://walk');
  for (const [key, value] of Object.entries(base.query?.(own) ?? {})) {
    if (operation.parameters.some((p) => p.in === 'query' && p.name === key)) url.searchParams.set(key, value);
  }
  if (!base.body) return { ...valid!, url: url.pathname + url.search };
  return {
    ...valid!,
    url: url.pathname + url.search,
    payload: toJson(base.body(own)),
    headers: { ...valid!.headers, 'content-type': 'application/json' },
  };
}

/** The walk's cases of one operation: its valid request with one part at a time at an edge. */
export function edgeCases(operation: Operation, root: Schema, base: Base, foreign: () => Own): Case[] {
  const cases: Case[] = [{ label: VALID, request: (own) => baseRequest(operation, root, base, own) }];
  if (base.owned) cases.push({ label: FOREIGN, request: () => baseRequest(operation, root, base, foreign()) });
  for (const parameter of operation.parameters) {
    if (parameter.in === 'header' && parameter.name !== 'authorization') {
      for (const edge of headerEdges(resolved(parameter.schema, root))) {
        cases.push({
          label: `header ${parameter.name}=${edge.label}`,
          request: (own) => {
            const valid = baseRequest(operation, root, base, own);
            return { ...valid, headers: { ...valid.headers, [parameter.name]: String(edge.value) } };
          },
        });
      }
    }
    if (parameter.in !== 'query' && parameter.in !== 'path') continue;
    for (const edge of parameterEdges(resolved(parameter.schema, root))) {
      const text = String(edge.value);
      const label = `${parameter.in} ${parameter.name}=${edge.label}`;
      if (parameter.in === 'path') {
        cases.push({ label, request: (own) => baseRequest(operation, root, base, own, { [parameter.name]: text }) });
      } else {
        cases.push({
          label,
          request: (own) => {
            const valid = baseRequest(operation, root, base, own);
            const url = new URL(valid.url, 'http://walk');
            url.searchParams.set(parameter.name, text);
            return { ...valid, url: url.pathname + url.search };
          },
        });
      }
    }
  }
  const schema = base.bodySchema ?? operation.body?.['application/json'];
  if (schema) {
    const bodyRoot = base.bodySchema ? {} : root;
    for (const field of fieldsOf(schema, bodyRoot)) {
      for (const edge of fieldEdges(field.schema, bodyRoot)) {
        cases.push({
          label: `body ${field.path.join('.')}=${edge.label}`,
          request: (own) => {
            const valid = baseRequest(operation, root, base, own);
            const body = JSON.parse(valid.payload ?? '{}') as unknown;
            return { ...valid, payload: toJson(withValue(body, schema, bodyRoot, field.path, edge.value)) };
          },
        });
      }
    }
  }
  return cases;
}

export function problemsOf(response: LightMyRequestResponse, documented: Set<string>): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500 && !(status === 503 && documented.has('503'))) problems.push(`status ${status}`);
  else if (!documented.has(String(status))) problems.push(`status ${status} not documented`);
  if (status >= 400 && !String(response.headers['content-type']).startsWith('text/html')) {
    try {
      if (status === 422) expectFieldErrors(response);
      else expectErrorBody(response, status, STATUS_CODES[status]!);
    } catch (error) {
      problems.push(`not the error shape: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  if (LEAKS.some((pattern) => pattern.test(response.body))) problems.push('internals in the body');
  return problems;
}

/** The app's route table (Fastify's printRoutes tree) as `METHOD /path/{param}` lines, HEAD and OPTIONS left out. */
export function routeTable(app: App): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    stack.length = depth;
    stack.push(node[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of (node[3] ?? '').split(', '))
      if (method && method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path}`);
  }
  return routes;
}
