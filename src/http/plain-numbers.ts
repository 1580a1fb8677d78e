import type { ErrorObject } from 'ajv';

// Path parameters, query parameters and headers arrive as text and Ajv coerces them to a schema's
// number with JavaScript's Number(): "1e3", " 1", "0x10", "0b11", "+5", "1.0" and "Infinity" all
// passed as numbers, so /product/0x10 was product 16, ?per-page=Infinity a full page and
// DELETE /wishlist/1e0 removed product 1. One id had many URLs (each a page and a cache entry of its
// own), and a typo or a client's bug was served as if it were meant. Before Ajv sees such a value,
// the text must be a plain decimal, refused as a field error of the same shape otherwise:
//
// - an integer: digits, with a '-' in front of a negative one, so that a negative value still
//   reaches the schema's minimum and its message ("must be no less than 1"); no leading zeros and
//   no "-0", so each number has one spelling (05 and 5, one URL per page);
// - a number: the same, with an optional point and digits after it (a price of 12.50); no
//   exponent, no point without a digit on each side (.5, 5.).
// A text of digits too long for a double (Infinity) is refused as well.

const PLAIN_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;
const PLAIN_DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

type Kind = 'integer' | 'number';
type SchemaNode = { type?: unknown; items?: unknown; anyOf?: unknown; oneOf?: unknown; properties?: unknown };

/** A parameter that takes numbers: whether integers or any number, the schema of one, and whether it is a list. */
export interface NumericParameter {
  kind: Kind;
  schema: SchemaNode;
  list: boolean;
}

/** The numeric parameters of a params, querystring or headers schema, by name; empty when it has none. */
export function numericParameters(schema: unknown): Map<string, NumericParameter> {
  const properties = ((schema as SchemaNode | null)?.properties ?? {}) as Record<string, SchemaNode>;
  const result = new Map<string, NumericParameter>();
  for (const [name, property] of Object.entries(properties)) {
    const list = property.type === 'array' && typeof property.items === 'object' && property.items !== null;
    const one = list ? (property.items as SchemaNode) : property;
    const kind = kindOf(one);
    if (kind !== undefined) result.set(name, { kind, schema: numericBranch(one), list });
  }
  return result;
}

/**
 * The kind of number a schema takes, or undefined when it takes none, or also takes text (a union
 * with a string branch reads the text as its own, so it is left to Ajv).
 */
function kindOf(schema: SchemaNode): Kind | undefined {
  const branches = branchesOf(schema);
  const types = branches.flatMap((branch) => [branch.type].flat());
  if (!types.some((type) => type === 'integer' || type === 'number')) return undefined;
  if (!types.every((type) => type === 'integer' || type === 'number' || type === 'null')) return undefined;
  return types.includes('number') ? 'number' : 'integer';
}

/** The branch whose type the message names (its minimum says whether an id is meant). */
function numericBranch(schema: SchemaNode): SchemaNode {
  const branches = branchesOf(schema);
  return branches.find((branch) => [branch.type].flat().some((type) => type === 'integer' || type === 'number')) ?? schema;
}

/** The alternatives of a union schema (anyOf, oneOf), or the schema itself. */
function branchesOf(schema: SchemaNode): SchemaNode[] {
  return (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : [schema]) as SchemaNode[];
}

/** Whether `text` is a plain decimal of the kind, one a double holds (not Infinity, not -0). */
export function isPlainNumber(text: string, kind: Kind): boolean {
  if (!(kind === 'integer' ? PLAIN_INTEGER : PLAIN_DECIMAL).test(text)) return false;
  const value = Number(text);
  return Number.isFinite(value) && !Object.is(value, -0);
}

/**
 * Field errors (validation.ts messageOf words them) of the numeric parameters whose text is not a plain decimal. A scalar parameter given more than once
 * is left to Ajv, which says it was repeated; the items of a list parameter are checked one by one.
 */
export function plainNumberErrors(value: unknown, parameters: Map<string, NumericParameter>): ErrorObject[] | null {
  if (value === null || typeof value !== 'object') return null;
  let errors: ErrorObject[] | null = null;
  for (const [name, parameter] of parameters) {
    if (!Object.hasOwn(value, name)) continue;
    const given = (value as Record<string, unknown>)[name];
    const path = `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const items: Array<[string, unknown]> =
      parameter.list && Array.isArray(given) ? given.map((item, i) => [`${path}/${i}`, item]) : [[path, given]];
    for (const [instancePath, item] of items) {
      if (typeof item !== 'string' || isPlainNumber(item, parameter.kind)) continue;
      (errors ??= []).push({
        instancePath,
        schemaPath: '',
        // An integer's refusal says what Ajv's says (an id: "must be a positive whole number"); a
        // number's shows how to write one, since "0x10" or "1e3" is a number to whoever sent it.
        keyword: parameter.kind === 'integer' ? 'type' : 'decimal',
        params: { type: parameter.kind },
        parentSchema: parameter.schema,
        data: item,
      } as ErrorObject);
    }
  }
  return errors;
}
