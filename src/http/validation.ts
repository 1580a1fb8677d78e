import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { translate, type Language, type MessageKey } from '../i18n/index.js';
import type { FieldError } from './errors.js';
import { LINK_TARGET_PATTERN } from './link-target.js';
import { numericParameters, plainNumberErrors } from './plain-numbers.js';
import { textPatternFailure } from './text.js';
import { summariseUnions } from './union-errors.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// `verbose`: an error carries the value and the schema it failed, which describing a union needs
// (union-errors.ts), and an integer's message (a positive id).
const common: Options = { allErrors: true, useDefaults: true, removeAdditional: true, strict: false, verbose: true };

// Query strings, path parameters and headers arrive as text, so they are coerced to the schema's
// types ("2" -> 2), a number only from a plain decimal ("0x10" and "1e3" are refused:
// plain-numbers.ts). A JSON body is not: {"page": "2"} where a number is expected is a client bug
// and gets a 422, as does {"email": 123}.
const coercing = withReadableDateTimes(addFormats(new Ajv({ ...common, coerceTypes: 'array' })));
const strict = withReadableDateTimes(addFormats(new Ajv({ ...common, coerceTypes: false })));

/**
 * A date-time is one Date.parse reads, as well as RFC 3339: the routes turn it into milliseconds
 * with Date.parse, and RFC 3339 (so ajv-formats) allows a leap second (23:59:60) and an offset of
 * hours alone (+03), which Date.parse reads as NaN. NaN reached the database: PostgreSQL refused it
 * (a 500), SQLite stored it as null (a back office's report lost its time).
 */
function withReadableDateTimes(ajv: Ajv): Ajv {
  const rfc3339 = ajv.formats['date-time'] as {
    validate: (text: string) => boolean;
    compare: (a: string, b: string) => number | undefined;
  };
  return ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => rfc3339.validate(text) && Number.isFinite(Date.parse(text)),
    compare: rfc3339.compare,
  });
}

/**
 * How deep a value may nest (objects and arrays). A JSON body is parsed at any depth, and where a
 * schema leaves an object open (additional properties, a record, an unknown value) the parsed
 * value reaches the walks below and the routes: nested 100,000 levels deep it overflowed the
 * stack of the first recursive walk (a 500). No documented body comes near this.
 */
const MAX_DEPTH = 64;

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strict : coercing).compile(schema as object);
  const withRepeats = httpPart === 'querystring' ? repeatedParameterErrors : (errors: ErrorObject[] | null | undefined) => errors;
  const parameters = httpPart === 'querystring' ? declaredParameters(schema) : undefined;
  // Text coerced to a number must be a plain decimal (plain-numbers.ts): Number() reads 0x10 and 1e3.
  const numeric = httpPart === 'body' ? new Map() : numericParameters(schema);
  // Ajv checks `minProperties` before it removes the fields a closed object does not name, so
  // {"foo": 1} passed an object of changes that needs one (`minProperties: 1`) and reached the route
  // as {}. A second pass over what is left sees the object as the route will.
  const twice = usesKeyword(schema, 'minProperties');
  // A NUL character is valid JSON and a valid %00 in a URL, but no text column takes it
  // (PostgreSQL refuses it outright, even as a query parameter), so a string that holds one is a
  // field error (422 in a body, 400 elsewhere), never a database failure. So is a value nested
  // deeper than MAX_DEPTH. The schema's own check runs first: it removes unknown fields.
  const validateWithoutNul = (value: unknown) => {
    const bracketed = parameters === undefined ? null : bracketedParameterErrors(value, parameters);
    if (bracketed !== null) {
      validateWithoutNul.errors = bracketed;
      return false;
    }
    const notPlain = numeric.size === 0 ? null : plainNumberErrors(value, numeric);
    if (notPlain !== null) {
      validateWithoutNul.errors = notPlain;
      return false;
    }
    const valid = validate(value) && (!twice || validate(value));
    validateWithoutNul.errors = valid ? nulErrors(value, '') : withTextFailures(withRepeats(validate.errors), value);
    return validateWithoutNul.errors === null || validateWithoutNul.errors === undefined || validateWithoutNul.errors.length === 0;
  };
  validateWithoutNul.errors = null as ErrorObject[] | null | undefined;
  return validateWithoutNul;
};

/**
 * A query parameter given more than once (`?categoryId=1&categoryId=2`) arrives as a list, which a
 * parameter that takes one value refuses as a wrong type: said as such, the message named the value
 * the client sent ("must be a positive whole number"). Its errors become one that says it was
 * repeated. A list parameter's refusal of its items (at `/ids/1`) or of their count is left as is.
 */
function repeatedParameterErrors(errors: ErrorObject[] | null | undefined): ErrorObject[] | null | undefined {
  const repeated = (error: ErrorObject) =>
    REFUSES_A_LIST.has(error.keyword) && Array.isArray(error.data) && !error.instancePath.includes('/', 1);
  if (!errors?.some(repeated)) return errors;
  const paths = new Set(errors.filter(repeated).map((error) => error.instancePath));
  return [
    ...[...paths].map((instancePath): ErrorObject => ({ instancePath, schemaPath: '', keyword: 'repeated', params: {} })),
    ...errors.filter((error) => !paths.has(error.instancePath)),
  ];
}

/** A query schema's parameters by name: whether each takes a list. */
function declaredParameters(schema: unknown): Map<string, boolean> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | null)?.properties ?? {};
  return new Map(Object.entries(properties).map(([name, property]) => [name, property.type === 'array']));
}

/** `type[]`, `type[0]`: a declared parameter's name with the brackets some clients add to lists. */
const BRACKETED = /^(.+)\[\d*\]$/;

/**
 * A declared parameter sent with brackets (`?type[]=BOOK&type[]=EBOOK`, as axios and PHP-style
 * serializers write lists) is refused with a message saying how to write it. Unknown parameters are
 * dropped (`removeAdditional`), so the bracketed name was dropped too and the filter silently did
 * nothing: a search for e-books answered every product.
 */
function bracketedParameterErrors(value: unknown, parameters: Map<string, boolean>): ErrorObject[] | null {
  if (value === null || typeof value !== 'object') return null;
  let errors: ErrorObject[] | null = null;
  for (const key in value) {
    if (!key.endsWith(']')) continue;
    const name = BRACKETED.exec(key)?.[1];
    if (name === undefined || !parameters.has(name)) continue;
    const instancePath = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    (errors ??= []).push({ instancePath, schemaPath: '', keyword: 'bracketed', params: { name, list: parameters.get(name) } });
  }
  return errors;
}

/** The keywords a single value's schema refuses a list with (a union's branches: `type`, then the union's own). */
const REFUSES_A_LIST = new Set(['type', 'anyOf', 'oneOf']);

/** Whether `keyword` appears anywhere in `schema`. */
function usesKeyword(schema: unknown, keyword: string): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  return Object.hasOwn(schema, keyword) || Object.values(schema).some((child) => usesKeyword(child, keyword));
}

/**
 * The errors, those of a text's pattern (text.ts) saying why it failed (`params.failure`): a control
 * character and a blank value get different messages.
 */
function withTextFailures(errors: ErrorObject[] | null | undefined, value: unknown): ErrorObject[] | null | undefined {
  if (!errors?.some((error) => error.keyword === 'pattern')) return errors;
  return errors.map((error) => {
    if (error.keyword !== 'pattern') return error;
    const failure = textPatternFailure(error.params.pattern, valueAt(value, error.instancePath));
    return failure === undefined ? error : { ...error, params: { ...error.params, failure } };
  });
}

/** The value at a JSON pointer (`/addresses/0/city`) of the validated data. */
function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

function nulErrors(value: unknown, path: string): ErrorObject[] | null {
  // Every request's headers, parameters and body pass here: the common case allocates nothing.
  return hasNulOrDepth(value, 0) ? nulErrorsAt(value, path, 0, path) : null;
}

function hasNulOrDepth(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_DEPTH) return true;
  for (const key in value) if (Object.hasOwn(value, key) && hasNulOrDepth((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** The NUL and depth errors of `value`; a too deep value is reported at its top-level field (`top`). */
function nulErrorsAt(value: unknown, path: string, depth: number, top: string): ErrorObject[] | null {
  if (typeof value === 'string') {
    return value.includes('\u0000') ? [{ instancePath: path, schemaPath: '', keyword: 'nul', params: {} }] : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return [{ instancePath: top, schemaPath: '', keyword: 'depth', params: { limit: MAX_DEPTH } }];
  const errors: ErrorObject[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    errors.push(...(nulErrorsAt(child, childPath, depth + 1, depth === 0 ? childPath : top) ?? []));
  }
  return errors.length > 0 ? errors : null;
}

/** Turns Ajv errors into `{field, message}` entries in the caller's language, one per field. */
export function toFieldErrors(errors: ErrorObject[], language: Language): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of summariseUnions(errors)) {
    const field = fieldOf(error);
    // A union's errors are summarised above; one left (its branches not found) adds nothing.
    if (seen.has(field) || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    seen.add(field);
    result.push({ field, message: messageOf(error, field, language) });
  }
  return result;
}

export function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  return path.join('.');
}

function messageOf(error: ErrorObject, field: string, language: Language): string {
  const params = error.params as Record<string, unknown>;
  const say = (key: MessageKey, extra: Record<string, string | number> = {}) => translate(language, key, { field, ...extra });
  switch (error.keyword) {
    case 'required':
      return say('validation.required');
    case 'type': {
      const types = String(params.type).split(',');
      if (types.length > 1) return say('validation.types', { types: types.join(', ') });
      if (params.type !== 'integer') return say('validation.type', { type: String(params.type) });
      // An id: a whole number from 1.
      return Number((error.parentSchema as { minimum?: unknown } | undefined)?.minimum) >= 1
        ? say('validation.positiveInteger')
        : say('validation.integer');
    }
    case 'minLength':
      return say('validation.minLength', { limit: Number(params.limit) });
    case 'maxLength':
      return say('validation.maxLength', { limit: Number(params.limit) });
    case 'minimum':
    case 'exclusiveMinimum':
      return say('validation.minimum', { limit: Number(params.limit) });
    case 'maximum':
    case 'exclusiveMaximum':
      return say('validation.maximum', { limit: Number(params.limit) });
    case 'enum':
    case 'const': {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [params.allowedValue];
      return say('validation.enum', { values: allowed.map(String).join(', ') });
    }
    case 'format':
      if (params.format === 'email') return say('validation.format.email');
      if (params.format === 'date') return say('validation.format.date');
      if (params.format === 'date-time') return say('validation.format.dateTime');
      return say('validation.format');
    case 'pattern':
      // A text (text.ts): a control character, or nothing but white space where text is required.
      if (params.failure === 'control') return say('validation.invalidCharacters');
      if (params.failure === 'blank') return say('validation.required');
      if (params.pattern === LINK_TARGET_PATTERN) return say('validation.linkTarget');
      return say('validation.pattern');
    case 'additionalProperties':
      return say('validation.unknownField');
    case 'nul':
      return say('validation.invalidCharacters');
    case 'depth':
      return say('validation.tooDeep', { limit: Number(params.limit) });
    case 'repeated':
      return say('validation.repeated');
    case 'decimal':
      return say('validation.decimal');
    case 'bracketed':
      return say(params.list === true ? 'validation.bracketedList' : 'validation.bracketed', { name: String(params.name) });
    case 'minProperties':
      // An object of changes with none in it (`{}`): no field to name.
      return say('validation.noFields');
    default:
      return say('validation.invalid');
  }
}
