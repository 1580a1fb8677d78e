import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { LINK_TARGET_PATTERN } from '../../http/link-target.js';
import { textPatternFailure } from '../../http/text.js';

// What an operator reads next to a refused line's number: `/field: what is wrong`, in words,
// instead of the schema library's own ("Expected union value", or the raw pattern of a code).

/** The pattern of an email address field (fields.ts's Email): worded as such, not as a pattern. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

/** `/path: message` for the first schema error of a line (the path is `(line)` for the line itself). */
export function lineMessage(error: ValueError): string {
  return `${error.path || '(line)'}: ${problem(error)}`;
}

function problem(error: ValueError): string {
  const schema = error.schema as TSchema & Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not an accepted field';
    case ValueErrorType.String:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.Boolean:
    case ValueErrorType.Array:
    case ValueErrorType.Object:
    case ValueErrorType.Null:
      return `must be ${TYPE_NAMES[String(schema.type)] ?? String(schema.type)}`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${String(schema.minLength)} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(schema.maxLength)} characters long`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return schema.minimum === 0 ? 'must not be negative' : `must be at least ${String(schema.minimum)}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${String(schema.maximum)}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `must be greater than ${String(schema.exclusiveMinimum)}`;
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `must be less than ${String(schema.exclusiveMaximum)}`;
    case ValueErrorType.ArrayMaxItems:
      return `may hold at most ${String(schema.maxItems)} items`;
    case ValueErrorType.ArrayMinItems:
      return `must hold at least ${String(schema.minItems)} items`;
    case ValueErrorType.ArrayUniqueItems:
      return 'must not hold the same item twice';
    case ValueErrorType.StringPattern:
      return patternProblem(schema.pattern, error.value);
    case ValueErrorType.StringFormat:
      return `must be a valid ${String(schema.format)}`;
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(schema.const)}`;
    case ValueErrorType.Union:
      return unionProblem(schema, error);
    default:
      return error.message;
  }
}

/** Control characters are reported before the schema is checked (fields.ts); what is left is white space. */
function patternProblem(pattern: unknown, value: unknown): string {
  if (pattern === EMAIL_PATTERN) return 'is not an email address';
  const text = textPatternFailure(pattern, value);
  if (text === 'blank') return 'must not be blank';
  if (typeof value === 'string' && value.trim() !== value) return 'must not begin or end with white space';
  if (pattern === LINK_TARGET_PATTERN) return 'must be a path of the shop starting with a single "/", or an http(s) URL';
  return 'is not of the accepted form';
}

/** A choice of values (`WEB` or `WEB2`), or a value that may be null: say what the value itself fails. */
function unionProblem(schema: Record<string, unknown>, error: ValueError): string {
  const members = (schema.anyOf ?? []) as Array<TSchema & Record<string, unknown>>;
  if (members.length > 0 && members.every((member) => 'const' in member)) {
    return `must be one of ${members.map((member) => String(member.const)).join(', ')}`;
  }
  const type = Array.isArray(error.value) ? 'array' : error.value === null ? 'null' : typeof error.value;
  const same = members.find((member) => member.type === type || (type === 'number' && member.type === 'integer'));
  const first = same && Value.Errors(same, error.value).First();
  if (first) return problem({ ...first, path: error.path });
  const accepted = members.map((member) => ('const' in member ? JSON.stringify(member.const) : TYPE_NAMES[String(member.type)]));
  return accepted.every((name) => name !== undefined) ? `must be ${accepted.join(' or ')}` : error.message;
}
