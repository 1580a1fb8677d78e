import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ValueErrorIterator } from '@sinclair/typebox/errors';

// An import line is checked against the schema an HTTP write of the same record is (the content
// kinds' PUT takes the very same one), and must get the same verdict. The HTTP API's validator
// (Ajv) counts a string's minLength and maxLength in code points; TypeBox's compiler counts UTF-16
// units, in which a character beyond the Basic Multilingual Plane (an emoji, a rare CJK character)
// is two: 150 emoji passed a name of at most 200 over HTTP and were refused by the import. So the
// import checks a copy of the line in which each such character is one unit.

/** A compiled check of import lines that counts lengths in code points, as the HTTP API does. */
export interface LineCheck<S extends TSchema> {
  Check(value: unknown): value is Static<S>;
  /** The line's errors (of the copy checked: a value quoted in one has the stand-in below). */
  Errors(value: unknown): ValueErrorIterator;
}

export function compileLineCheck<S extends TSchema>(schema: S): LineCheck<S> {
  const compiled = TypeCompiler.Compile(schema);
  return {
    Check: (value): value is Static<S> => compiled.Check(countingCodePoints(value)),
    Errors: (value) => compiled.Errors(countingCodePoints(value)),
  };
}

/** A surrogate pair: one character beyond the Basic Multilingual Plane, two UTF-16 units. */
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
/**
 * What stands for such a character in the copy: one unit (a private-use character) that the
 * schemas' patterns read as Ajv reads the character itself. They are plain ECMA-262 of classes
 * within the BMP (http/text.ts): neither is white space, a control character or an ASCII letter.
 */
const ONE_UNIT = '\uE000';
/**
 * No schema nests this deep; below it a value is checked as it is (and refused by its shape), so a
 * line of a million nested arrays does not overflow the stack here.
 */
const MAX_DEPTH = 64;

/**
 * The value with each surrogate pair of its strings as one unit: a copy of what holds one, the
 * value itself where nothing does (no copy of the common line).
 */
function countingCodePoints(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SURROGATE_PAIR, ONE_UNIT);
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
  let copy: object | undefined;
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    const counted = countingCodePoints(item, depth + 1);
    if (counted === item) continue;
    copy ??= Array.isArray(value) ? [...(value as unknown[])] : { ...value };
    // Defined, not assigned: a member named "__proto__" stays a member.
    Object.defineProperty(copy, key, { value: counted, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}
