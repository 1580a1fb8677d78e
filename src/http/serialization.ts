import fastJsonStringify from 'fast-json-stringify';
import type { FastifyReply, FastifySerializerCompiler } from 'fastify';

type Serializer = (data: unknown) => string;
type Schema = Record<string, unknown>;

// Building a response serializer (fast-json-stringify generates and compiles code per schema) was
// about two thirds of building the whole app, ~0.4 s of CPU, paid again by every app a process
// builds (every test file does). A serializer depends on nothing but its schema's content, and the
// routes share most of theirs (the same error shapes hundreds of times, spread into new objects),
// so one serializer per distinct schema text serves every route of every app in the process. The
// same options as Fastify's own compiler when no shared schemas are added (the app adds none).
const serializers = new Map<string, Serializer>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const text = JSON.stringify(schema);
  let serializer = serializers.get(text);
  if (!serializer) {
    const folded = foldUnions(JSON.parse(text) as Schema);
    serializer = fastJsonStringify(folded as unknown as Parameters<typeof fastJsonStringify>[0], { schema: {} }) as Serializer;
    serializers.set(text, serializer);
  }
  return serializer;
};

// fast-json-stringify picks an `anyOf` branch by running an Ajv validator on the value, branch by
// branch, on every serialisation. TypeBox writes every nullable field (`Type.Union([X,
// Type.Null()])`) as such an anyOf: a product card has eight, so a list of 50 cards ran ~400
// validations (a date-format check among them) just to tell null from a value. `nullable: true`
// on X says the same to the serializer with one `=== null` test; a union of string literals (a
// status, a role) is a string with an enum, which the serializer writes without a check. Only the
// serializer's copy is rewritten: validation and /docs keep the schema as written.
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
/** Keywords fast-json-stringify handles before it looks at `nullable` (so it would ignore it). */
const BRANCHING = ['anyOf', 'oneOf', 'allOf', '$ref', 'if'];

/** The schema with its nullable and literal unions folded as above, at every depth; a new object. */
export function foldUnions(schema: Schema): Schema {
  const result: Schema = {};
  for (const [key, value] of Object.entries(schema)) result[key] = foldKeyword(key, value);
  const union = result.anyOf;
  if (!Array.isArray(union)) return result;
  const literalType = typeOfLiterals(union);
  if (literalType !== undefined) {
    const { anyOf: _union, ...siblings } = result;
    return { type: literalType, enum: union.map((branch: Schema) => branch.const), ...siblings };
  }
  if (union.length !== 2) return result;
  const nullAt = union.findIndex((branch) => isSchema(branch) && branch.type === 'null' && Object.keys(branch).length === 1);
  const other: unknown = union[1 - nullAt];
  if (nullAt === -1 || !isSchema(other) || BRANCHING.some((keyword) => keyword in other) || other.type === undefined) return result;
  const { anyOf: _union, ...siblings } = result;
  return { ...other, ...siblings, nullable: true };
}

function foldKeyword(key: string, value: unknown): unknown {
  if (SCHEMA_MAPS.includes(key) && isSchema(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isSchema(sub) ? foldUnions(sub) : sub]));
  }
  if ((SCHEMA_LISTS.includes(key) || key === 'items') && Array.isArray(value)) {
    return value.map((sub: unknown) => (isSchema(sub) ? foldUnions(sub) : sub));
  }
  if (SUBSCHEMAS.includes(key) && isSchema(value)) return foldUnions(value);
  return value;
}

/** The one type of a union of literals (`Type.Union([Type.Literal('A'), ...])`); undefined for any other union. */
function typeOfLiterals(union: unknown[]): unknown {
  const [first] = union;
  if (!isSchema(first)) return undefined;
  const literal = (branch: unknown) =>
    isSchema(branch) && 'const' in branch && branch.type === first.type && Object.keys(branch).length === 2;
  return typeof first.type === 'string' && first.type !== 'null' && union.every(literal) ? first.type : undefined;
}

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Sends `text`, already the JSON of the route's response schema, as it is: Fastify sends a string
 * or a Buffer with a JSON content type without serializing it again. For answers written from text
 * kept between requests (product cards, kept as UTF-8 bytes: see jsonBytes); the route still
 * declares its schema for validation and /docs.
 */
export function sendJsonText(reply: FastifyReply, text: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}

/**
 * One body of JSON pieces: Buffers (kept UTF-8 bytes) copied as they are, strings (punctuation,
 * numbers, timestamps) encoded where they go. A text joined from kept strings is measured and
 * encoded again for every answer; pieces kept as bytes are copied once (product-card.text.ts).
 * The body is a Buffer of its own, safe to keep.
 */
export function jsonBytes(pieces: ReadonlyArray<Buffer | string>): Buffer {
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  // Not Buffer.allocUnsafe: under 4 KB that is a slice of Node's shared 8 KB pool, and a body kept
  // (a card, a guest's answer) would keep the whole slab alive with whatever was written beside it.
  const body = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? body.write(piece, at, 'utf8') : piece.copy(body, at);
  return body;
}

/** A JSON array of elements already written as bytes. */
export function jsonArrayBytes(elements: readonly Buffer[]): Buffer {
  const pieces: Array<Buffer | string> = ['['];
  for (let i = 0; i < elements.length; i += 1) {
    if (i > 0) pieces.push(',');
    pieces.push(elements[i]!);
  }
  pieces.push(']');
  return jsonBytes(pieces);
}
