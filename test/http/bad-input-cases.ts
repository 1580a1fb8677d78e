// The bad requests of bad-input-sweep.test.ts, derived from an operation of the OpenAPI document:
// a valid request built from the documented schemas, then one part of it at a time made bad.
// Deterministic: the same document gives the same requests in the same order.

export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  /** The path as documented, `{name}` for path parameters, with the document's server prefix. */
  path: string;
  parameters: Parameter[];
  /** Content type -> schema of the request body, when one is documented. */
  body: Record<string, Schema | undefined> | undefined;
  /** The statuses the operation documents. */
  responses: string[];
  /** Whether the operation documents a bearer token or Basic credentials. */
  secured: boolean;
}

export interface BadRequest {
  /** What was made bad, e.g. `query page=letters` or `body email=null`. */
  label: string;
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string;
  /** Replaces the caller's Authorization header (null: send none). */
  authorization?: string | null;
}

/** A JSON literal spliced into a body as is (numbers JSON.stringify cannot write, deep nesting). */
class Raw {
  constructor(readonly text: string) {}
}

const deepObject = (depth: number) => new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const deepArray = (depth: number) => new Raw(`${'['.repeat(depth)}1${']'.repeat(depth)}`);

/** A UTF-8 string as the latin1 text a header carries on the wire. */
const onTheWire = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

const LONG_PARAM = 'x'.repeat(10_000);
const LONG_FIELD = 'x'.repeat(100_000);
const UNICODE = 'Õun 📚 漢字 \u202e\ufeff';

/**
 * Values for a path or query parameter. `raw` values go into the URL as they are (already
 * percent-encoded or deliberately malformed), the others through encodeURIComponent.
 */
const PARAM_VALUES: Array<{ label: string; value: string; raw?: boolean; core?: boolean }> = [
  { label: 'letters', value: 'abc', core: true },
  { label: 'negative', value: '-1', core: true },
  { label: 'zero', value: '0', core: true },
  { label: 'huge', value: '99999999999999999999', core: true },
  { label: '1e308', value: '1e308', core: true },
  { label: 'non-integer', value: '1.5', core: true },
  { label: 'empty', value: '', core: true },
  { label: 'very long', value: LONG_PARAM, core: true },
  { label: 'unicode', value: UNICODE, core: true },
  { label: 'NUL', value: '%00', raw: true, core: true },
  { label: '../', value: '../', core: true },
  { label: 'raw ../', value: '../', raw: true },
  { label: 'number', value: '1' },
  { label: '-1e308', value: '-1e308' },
  { label: 'Infinity', value: 'Infinity' },
  { label: 'hex', value: '0x10' },
  { label: 'spaces', value: ' 1 ' },
  { label: 'boolean', value: 'true' },
  { label: 'malformed percent', value: '%E0%A4%A', raw: true },
  { label: 'lone percent', value: '%', raw: true },
  { label: 'control characters', value: '%01%1B%7F', raw: true },
  { label: 'SQL', value: "1' or '1'='1" },
  { label: 'JSON', value: '{"a":1}' },
];

/** Values for a header; a header value is latin1 text on the wire. */
const HEADER_VALUES: Array<{ label: string; value: string | string[]; core?: boolean }> = [
  { label: 'empty', value: '', core: true },
  { label: 'blank', value: '   ' },
  { label: 'letters', value: 'abc' },
  { label: 'lower case', value: 'web' },
  { label: 'negative', value: '-1' },
  { label: 'huge', value: '99999999999999999999' },
  { label: 'non-integer', value: '1.5' },
  { label: 'very long', value: LONG_PARAM, core: true },
  { label: 'unicode', value: onTheWire(UNICODE), core: true },
  { label: 'latin1', value: 'ÿþ' },
  { label: '../', value: '../../etc/passwd' },
  { label: 'list', value: 'WEB, WEB2' },
  { label: 'twice', value: ['WEB', 'WEB2'], core: true },
  { label: 'JSON', value: '{"a":1}' },
];

/** Malformed or foreign Authorization headers (the caller's own credential is not among them). */
const AUTHORIZATION_VALUES: Array<{ label: string; value: string; core?: boolean }> = [
  { label: 'scheme only', value: 'Bearer', core: true },
  { label: 'scheme and space', value: 'Bearer ' },
  { label: 'short token', value: 'Bearer x', core: true },
  { label: 'two tokens', value: 'Bearer a b' },
  { label: 'JWT-shaped', value: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' },
  { label: 'very long token', value: `Bearer ${LONG_PARAM}`, core: true },
  { label: 'unicode token', value: `Bearer ${onTheWire(UNICODE)}` },
  { label: 'Basic not base64', value: 'Basic !!!', core: true },
  { label: 'Basic without colon', value: `Basic ${Buffer.from('nobody').toString('base64')}` },
  { label: 'Basic unknown', value: `Basic ${Buffer.from('nobody:wrong').toString('base64')}`, core: true },
  { label: 'Basic with NUL', value: `Basic ${Buffer.from('no\u0000body:wr\u0000ong').toString('base64')}`, core: true },
  { label: 'Basic very long', value: `Basic ${Buffer.from(`${LONG_PARAM}:${LONG_PARAM}`).toString('base64')}` },
  { label: 'other scheme', value: 'Token abc', core: true },
  { label: 'empty', value: '' },
];

/**
 * Path parameters whose schema sample would only ever reach a 404: a value that exists instead (the
 * demo's codes), so that the bad values of the other parts get past the lookup (bad-input-sweep,
 * plain-number-sweep).
 */
export const PATH_VALUES: Record<string, Record<string, string>> = {
  '/product/code/{code}': { code: '1000001' },
  '/shop/{code}': { code: 'HPS' },
  '/shop/{code}/schedule': { code: 'HPS' },
  '/content-page/{slug}': { slug: 'meist' },
  '/blog/{slug}': { slug: 'sugise-lugemisnimekiri' },
  '/news/{slug}': { slug: 'uus-pood-tartus' },
  '/campaign/code/{code}': { code: 'WEB-BOOK-WEEK' },
  '/product-list/code/{code}': { code: 'WEB-BOOK-CLUB' },
  '/product-list/code/{code}/products': { code: 'WEB-BOOK-CLUB' },
  '/admin/content/redirects/{code}': { code: 'DEMO-OLD-BLOG' },
  '/admin/import/{kind}': { kind: 'publishers' },
  '/integration/supplier/{code}/{kind}': { code: 'SWEEP', kind: 'stock' },
  '/payment/{gateway}/callback': { gateway: 'test' },
  '/sitemap/{store}/{file}': { store: 'WEB', file: 'sitemap.xml' },
  '/admin/content/{kind}/{code}': { kind: 'content-pages' },
};

// ---- Valid values from a schema ----

/** Strings tried, in order, for a string with a pattern: the first that fits is the sample. */
const PATTERN_CANDIDATES = [
  'sweep',
  'EE',
  'ee',
  'EE123',
  'AB12',
  'a-b',
  'abc',
  '12345',
  '1.5',
  '1',
  'true',
  '+372 5555 5555',
  'https://example.com/x',
  '/kampaania',
  'sitemap.xml',
  'x',
];

function resolve(schema: Schema | undefined, root: Schema): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10 && typeof current.$ref === 'string'; i++) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    current = path.reduce<Record<string, unknown>>((node, key) => node?.[key] as Record<string, unknown>, root) as Schema;
  }
  return current;
}

/** The branches of an anyOf/oneOf (nullable branches last), or the schema itself. */
function branches(schema: Schema, root: Schema): Schema[] {
  const list = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (!list) return [schema];
  const resolved = list.map((branch) => resolve(branch, root));
  return [...resolved.filter((b) => b.type !== 'null'), ...resolved.filter((b) => b.type === 'null')];
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null');
  if (typeof type === 'string') return type;
  if (schema.properties) return 'object';
  if (schema.enum) return typeof (schema.enum as unknown[])[0];
  return undefined;
}

/** A value the schema accepts, as small as the schema allows. */
export function sample(input: Schema | undefined, root: Schema): unknown {
  const schema = branches(resolve(input, root), root)[0]!;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (typeOf(schema)) {
    case 'string':
      return sampleString(schema);
    case 'integer':
    case 'number': {
      const minimum =
        typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
      const value = Math.max(minimum, 1);
      return typeof schema.maximum === 'number' ? Math.min(value, schema.maximum) : value;
    }
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.max(Number(schema.minItems ?? 0), 0);
      return Array.from({ length: count }, () => sample(schema.items as Schema, root));
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const minProperties = Number(schema.minProperties ?? 0);
      const result: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name) || Object.keys(result).length < minProperties) result[name] = sample(property, root);
      }
      return result;
    }
    default:
      return 'sweep';
  }
}

function sampleString(schema: Schema): string {
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  switch (schema.format) {
    case 'email':
      return 'sweep@example.ee';
    case 'date':
      return '2026-11-29';
    case 'date-time':
      return '2026-11-29T12:00:00Z';
  }
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  const fits = (text: string) => text.length >= min && text.length <= max && (!pattern || pattern.test(text));
  for (const candidate of PATTERN_CANDIDATES) {
    if (fits(candidate)) return candidate;
    const padded = candidate.padEnd(min, 'a');
    if (fits(padded)) return padded;
  }
  return 'sweep'.padEnd(min, 'a').slice(0, Number.isFinite(max) ? max : undefined);
}

// ---- Fields of a JSON body ----

interface Field {
  /** Keys and array indexes from the body's root. */
  path: Array<string | number>;
  schema: Schema;
}

/** Every property of the body schema, nested objects and the first item of arrays of objects included. */
function fieldsOf(schema: Schema, root: Schema, path: Array<string | number> = [], depth = 0): Field[] {
  const resolved = branches(resolve(schema, root), root)[0]!;
  const fields: Field[] = [];
  const properties = (resolved.properties ?? {}) as Record<string, Schema>;
  for (const [name, property] of Object.entries(properties)) {
    const child = branches(resolve(property, root), root)[0]!;
    fields.push({ path: [...path, name], schema: child });
    if (depth >= 3) continue;
    if (typeOf(child) === 'object') fields.push(...fieldsOf(child, root, [...path, name], depth + 1));
    if (typeOf(child) === 'array') {
      const items = branches(resolve(child.items as Schema, root), root)[0]!;
      if (typeOf(items) === 'object') fields.push(...fieldsOf(items, root, [...path, name, 0], depth + 1));
    }
  }
  return fields;
}

/** The base body with `value` at `path`; missing parents are filled with valid samples. */
function withValue(base: unknown, bodySchema: Schema, root: Schema, path: Array<string | number>, value: unknown): unknown {
  const body = structuredClone(base) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = body;
  let schema = branches(resolve(bodySchema, root), root)[0]!;
  for (const key of path.slice(0, -1)) {
    const childSchema =
      typeof key === 'number'
        ? branches(resolve(schema.items as Schema, root), root)[0]!
        : branches(resolve((schema.properties as Record<string, Schema>)[key], root), root)[0]!;
    if (typeof key === 'number') {
      // An array of objects: its first item is a valid one to change.
      while ((node as unknown as unknown[]).length <= key) (node as unknown as unknown[]).push(sample(childSchema, root));
    } else if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') {
      node[key] = sample(childSchema, root);
    }
    node = node[key] as Record<string | number, unknown>;
    schema = childSchema;
  }
  node[path.at(-1)!] = value;
  return body;
}

/** JSON text with Raw values spliced in. */
function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_, index: string) => raws[Number(index)]!);
}

/** A value of another JSON type than the schema's. */
function wrongType(schema: Schema): unknown {
  switch (typeOf(schema)) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'abc';
    case 'boolean':
      return 'yes';
    case 'array':
      return { a: 1 };
    case 'object':
      return 'text';
    default:
      return [1, 2];
  }
}

/** Bad values for one field: the core ones for every field, then the ones its type makes interesting. */
function fieldValues(schema: Schema): Array<{ label: string; value: unknown; core?: boolean }> {
  const values: Array<{ label: string; value: unknown; core?: boolean }> = [
    { label: 'wrong type', value: wrongType(schema), core: true },
    { label: 'null', value: null, core: true },
    { label: '100k string', value: LONG_FIELD, core: true },
    { label: 'deeply nested object', value: deepObject(5_000), core: true },
    { label: 'huge number', value: new Raw('99999999999999999999'), core: true },
    { label: '1e308', value: new Raw('1e308'), core: true },
    { label: 'negative number', value: -1, core: true },
    { label: '-1e308', value: new Raw('-1e308') },
    { label: '1e999 (Infinity)', value: new Raw('1e999') },
    { label: 'zero', value: 0 },
    { label: 'non-integer', value: 1.5 },
    { label: 'empty string', value: '' },
    { label: 'blank string', value: '   ' },
    { label: 'unicode', value: UNICODE },
    { label: 'control characters', value: 'a\u0001\u001b\u007fb' },
    { label: 'lone surrogate', value: new Raw('"\\ud800x"') },
    { label: 'empty array', value: [] },
    { label: 'empty object', value: {} },
    { label: 'deeply nested array', value: deepArray(5_000) },
  ];
  const type = typeOf(schema);
  if (Array.isArray(schema.enum) || branches(schema, {}).some((b) => Array.isArray(b.enum))) {
    values.push({ label: 'unknown enum value', value: 'NO_SUCH_VALUE', core: true }, { label: 'number for enum', value: 1, core: true });
  }
  if (type === 'string') {
    values.push({ label: 'NUL', value: 'a\u0000b' }, { label: 'number-like string', value: '99999999999999999999' });
  }
  if (type === 'array') {
    values.push(
      { label: '10k items', value: Array.from({ length: 10_000 }, (_, i) => i) },
      { label: 'array of nulls', value: [null, null] },
    );
  }
  if (type === 'integer' || type === 'number') {
    values.push({ label: 'max safe + 1', value: new Raw('9007199254740993') }, { label: '2^31', value: 2_147_483_648 });
  }
  return values;
}

// ---- Requests ----

/**
 * How many cases each parameter, header and field gets: `full` the core values and one more,
 * `core` the core values, `minimal` one value. The values beyond the core ones rotate with the
 * operation and the parameter, so the sweep as a whole sends every value and stays deterministic.
 */
export type Depth = 'full' | 'core' | 'minimal';

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The values `depth` picks for one parameter or field; `key` names it in its operation. */
function pick<T extends { core?: boolean }>(values: T[], depth: Depth, key: string): T[] {
  const core = values.filter((v) => v.core);
  const others = values.filter((v) => !v.core);
  const start = hash(key);
  const rotating = (list: T[], count: number) =>
    Array.from({ length: Math.min(count, list.length) }, (_, i) => list[(start + i) % list.length]!);
  if (depth === 'minimal') return rotating(values, 1);
  return depth === 'core' ? core : [...core, ...rotating(others, 1)];
}

function pathWith(operation: Operation, values: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name]!);
}

function queryString(pairs: Array<[string, string]>): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join('&')}`;
}

const encode = (value: { value: string; raw?: boolean }) => (value.raw ? value.value : encodeURIComponent(value.value));

/**
 * The bad requests of one operation, the valid request they change first. `depth` says how many
 * values each part gets (see Depth); `pathValues` and `bodyValues` replace schema samples that
 * would be refused before the rest of the request is read (an unknown code, a wrong password).
 */
export function badRequests(
  operation: Operation,
  root: Schema,
  options: { depth: Depth; pathValues?: Record<string, string>; bodyValues?: Record<string, unknown> },
): BadRequest[] {
  const { depth } = options;
  const name = `${operation.method} ${operation.path}`;
  const params = operation.parameters.filter((p) => p.in !== 'cookie');
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');

  const basePath: Record<string, string> = Object.fromEntries(
    pathParams.map((p) => [p.name, encodeURIComponent(options.pathValues?.[p.name] ?? String(sample(p.schema, root)))]),
  );
  const baseQuery: Array<[string, string]> = queryParams
    .filter((p) => p.required)
    .map((p) => [p.name, encodeURIComponent(String(sample(p.schema, root)))]);
  const baseHeaders: Record<string, string> = {};
  for (const p of headerParams) {
    if (p.name === 'store') baseHeaders.store = 'WEB';
    else if (p.name === 'x-app-language') baseHeaders['x-app-language'] = 'en';
  }
  const jsonSchema = operation.body?.['application/json'];
  const contentType = operation.body ? Object.keys(operation.body)[0]! : undefined;
  const baseBody = jsonSchema ? { ...(sample(jsonSchema, root) as object), ...options.bodyValues } : undefined;
  const basePayload = (): { payload?: string; headers: Record<string, string> } => {
    if (jsonSchema) return { payload: toJson(baseBody), headers: { 'content-type': 'application/json' } };
    if (contentType === 'application/x-ndjson') return { payload: '{}\n', headers: { 'content-type': contentType } };
    if (contentType) return { payload: '', headers: { 'content-type': contentType } };
    return { headers: {} };
  };
  const request = (
    label: string,
    parts: {
      path?: Record<string, string>;
      query?: Array<[string, string]>;
      headers?: Record<string, string | string[]>;
      payload?: string;
      contentType?: string | null;
      authorization?: string | null;
    } = {},
  ): BadRequest => {
    const body = basePayload();
    const headers: Record<string, string | string[]> = { ...baseHeaders, ...body.headers, ...parts.headers };
    if (parts.contentType === null) delete headers['content-type'];
    else if (parts.contentType !== undefined) headers['content-type'] = parts.contentType;
    return {
      label,
      method: operation.method,
      url: pathWith(operation, { ...basePath, ...parts.path }) + queryString(parts.query ?? baseQuery),
      headers,
      payload: parts.payload ?? body.payload,
      ...(parts.authorization !== undefined ? { authorization: parts.authorization } : {}),
    };
  };

  const requests: BadRequest[] = [request('the valid request the others change')];

  const isEnum = (p: Parameter) => branches(resolve(p.schema, root), root).some((b) => Array.isArray(b.enum));
  for (const p of pathParams) {
    for (const value of pick(PARAM_VALUES, depth, `${name} path ${p.name}`)) {
      requests.push(request(`path ${p.name}=${value.label}`, { path: { [p.name]: encode(value) } }));
    }
    if (depth !== 'minimal' && isEnum(p)) requests.push(request(`path ${p.name}=number for enum`, { path: { [p.name]: '1' } }));
  }
  for (const p of queryParams) {
    const others = baseQuery.filter(([other]) => other !== p.name);
    for (const value of pick(PARAM_VALUES, depth, `${name} query ${p.name}`)) {
      requests.push(request(`query ${p.name}=${value.label}`, { query: [...others, [p.name, encode(value)]] }));
    }
    if (depth === 'minimal') continue;
    if (isEnum(p)) requests.push(request(`query ${p.name}=number for enum`, { query: [...others, [p.name, '1']] }));
    const good = encodeURIComponent(String(sample(p.schema, root)));
    requests.push(request(`query ${p.name} twice`, { query: [...others, [p.name, good], [p.name, good]] }));
    if (!p.required) continue;
    requests.push(request(`query ${p.name} missing`, { query: others }));
    requests.push(request(`query ${p.name} without a value`, { query: [...others, [p.name, '']] }));
  }
  if (depth !== 'minimal') requests.push(request('unknown query parameter', { query: [...baseQuery, ['zzz', 'x'], ['__proto__', 'x']] }));

  for (const p of headerParams) {
    for (const value of pick(HEADER_VALUES, depth, `${name} header ${p.name}`)) {
      requests.push(request(`header ${p.name}=${value.label}`, { headers: { [p.name]: value.value } }));
    }
    if (p.name === 'store') requests.push(request('header store=unknown code', { headers: { store: 'WEB3' } }));
    if (p.name === 'x-app-language') requests.push(request('header x-app-language=unknown', { headers: { 'x-app-language': 'xx' } }));
  }
  for (const value of pick(AUTHORIZATION_VALUES, depth, `${name} authorization`)) {
    requests.push(request(`Authorization ${value.label}`, { authorization: value.value }));
  }

  if (jsonSchema) requests.push(...jsonBodyRequests(jsonSchema, baseBody, root, request, depth, name));
  else if (contentType === 'application/x-ndjson') requests.push(...ndjsonBodyRequests(request, contentType));
  else if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(operation.method)) {
    // No documented body: one sent anyway must not confuse the route.
    requests.push(
      request('undocumented JSON body', { payload: '{"a":1}', contentType: 'application/json' }),
      request('undocumented invalid JSON body', { payload: '{"a":', contentType: 'application/json' }),
      request('undocumented text body', { payload: 'hello', contentType: 'text/plain' }),
    );
  }
  return requests;
}

type MakeRequest = (
  label: string,
  parts?: { payload?: string; contentType?: string | null; headers?: Record<string, string | string[]> },
) => BadRequest;

function jsonBodyRequests(schema: Schema, base: unknown, root: Schema, request: MakeRequest, depth: Depth, name: string): BadRequest[] {
  const whole: Array<{ core?: boolean; request: () => BadRequest }> = [
    { core: true, request: () => request('body invalid JSON', { payload: '{"a":' }) },
    { request: () => request('body empty', { payload: '' }) },
    { core: true, request: () => request('body an array', { payload: '[]' }) },
    { request: () => request('body an array of the object', { payload: `[${toJson(base)}]` }) },
    { core: true, request: () => request('body null', { payload: 'null' }) },
    { request: () => request('body a string', { payload: '"text"' }) },
    { request: () => request('body a number', { payload: '42' }) },
    { core: true, request: () => request('body an empty object', { payload: '{}' }) },
    { core: true, request: () => request('body as text/plain', { contentType: 'text/plain' }) },
    { request: () => request('body as form data', { payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' }) },
    { request: () => request('body as multipart', { payload: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x' }) },
    { request: () => request('body without a content type', { contentType: null }) },
    { request: () => request('body with a bad charset', { contentType: 'application/json; charset=klingon' }) },
    {
      core: true,
      request: () =>
        request('body with unknown extra fields', { payload: toJson({ ...(base as object), zzz: 'x', _sweepExtra: { a: [1, 2] } }) }),
    },
    {
      request: () =>
        request('body with constructor.prototype', {
          payload: toJson({ ...(base as object), constructor: { prototype: { admin: true } } }),
        }),
    },
    {
      request: () =>
        request('body with duplicate keys', {
          payload: `${toJson(base).slice(0, -1)}${toJson(base) === '{}' ? '' : ','}"zzz":1,"zzz":2}`,
        }),
    },
    // Deep enough to overflow any recursive walk of the parsed value (Node's stack takes some 10,000 frames).
    { core: true, request: () => request('body nested 30k deep', { payload: deepObject(30_000).text }) },
    {
      request: () =>
        request('body with 10k keys', { payload: toJson(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]))) }),
    },
  ];
  const requests = pick(whole, depth, `${name} body`).map((entry) => entry.request());
  for (const field of fieldsOf(schema, root)) {
    const path = field.path.join('.');
    for (const value of pick(fieldValues(field.schema), depth, `${name} body ${path}`)) {
      requests.push(request(`body ${path}=${value.label}`, { payload: toJson(withValue(base, schema, root, field.path, value.value)) }));
    }
  }
  return requests;
}

function ndjsonBodyRequests(request: MakeRequest, contentType: string): BadRequest[] {
  return [
    request('ndjson empty', { payload: '' }),
    request('ndjson not JSON', { payload: 'not json\n{"a":' }),
    request('ndjson arrays and nulls', { payload: '[]\nnull\n42\n"text"\n' }),
    request('ndjson objects of wrong types', { payload: '{"code":123,"name":null}\n{"code":{"a":1}}\n' }),
    request('ndjson a 100k line', { payload: `{"code":"${LONG_FIELD}"}\n` }),
    request('ndjson a deeply nested line', { payload: `${deepObject(5_000).text}\n` }),
    request('ndjson NUL characters', { payload: '{"code":"a\\u0000b","name":"x"}\n' }),
    request('ndjson as application/json', { payload: '{}', contentType: 'application/json' }),
    request('ndjson as text/plain', { payload: '{}', contentType: 'text/plain' }),
    request('ndjson without a content type', { payload: '{}', contentType: null }),
    request('ndjson with a bad charset', { payload: '{}', contentType: `${contentType}; charset=klingon` }),
  ];
}

/** The operations of an OpenAPI document, their paths with the document's server prefix. */
export function operationsOf(document: { paths: Record<string, Record<string, unknown>>; servers?: Array<{ url: string }> }): Operation[] {
  const prefix = document.servers?.[0]?.url.replace(/\/$/, '') ?? '';
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = raw as {
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
        security?: Array<Record<string, unknown>>;
        responses?: Record<string, unknown>;
      };
      operations.push({
        method: method.toUpperCase(),
        path: prefix + path,
        parameters: op.parameters ?? [],
        body: op.requestBody
          ? Object.fromEntries(Object.entries(op.requestBody.content).map(([type, content]) => [type, content.schema]))
          : undefined,
        responses: Object.keys(op.responses ?? {}),
        secured: (op.security ?? []).length > 0 && !(op.security ?? []).some((s) => Object.keys(s).length === 0),
      });
    }
  }
  return operations;
}
