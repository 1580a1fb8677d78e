import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CONTROL_CHARACTERS, MultilineText, TextLine } from '../../http/text.js';
import { compileLineCheck, excerpt, KeyedLineError, LineError } from '../../infra/import/index.js';
import { endOfLocalDay, instantOf } from '../../infra/shop-time.js';
import { STORE_CODES } from '../store/index.js';
import { EMAIL_PATTERN, lineMessage } from './line-messages.js';

// Field shapes and conversions every catalogue import shares: codes, translated names, money,
// dates, barcodes. A line is checked whole against its schema before anything is looked up.

// A problem with one line, in the operator's words: the import engine's, so that it tells them
// from an unexpected error, whose text is logged and not shown.
export { LineError } from '../../infra/import/index.js';

/** No white space at either end, no control character anywhere. */
const CODE = `^[^\\s${CONTROL_CHARACTERS}]([^${CONTROL_CHARACTERS}]*[^\\s${CONTROL_CHARACTERS}])?$`;

// Strings are plain text: no control characters (NUL, escape, ...; PostgreSQL cannot even store a
// NUL). Only a `Text` (a description, opening hours, a quote) may hold tabs and line breaks. The
// texts' schemas say so themselves (src/http/text.ts), so an operator's single edit over HTTP, whose
// body is one of these line schemas, is refused alike; a line's check below names the character.
export const Code = (description = 'code of the back office') => Type.String({ minLength: 1, maxLength: 40, pattern: CODE, description });
/** One line of text, possibly empty (an address, a phone number). */
export const Line = (maxLength: number) => TextLine({ maxLength });
/** A text of one or more lines, possibly empty (minLength 0) or else not blank. */
export const Text = (maxLength: number, minLength = 0) => MultilineText({ minLength, maxLength, multiline: true });
export const Name = (maxLength = 200) => TextLine({ minLength: 1, maxLength });
/** An email address: something@somewhere.tld, nothing more is checked. */
export const Email = () => Type.String({ maxLength: 254, pattern: EMAIL_PATTERN });
export const Store = Type.Union(STORE_CODES.map((code) => Type.Literal(code)));
export const Position = Type.Integer({ minimum: 0, maximum: 1_000_000 });
/** Euros as a JSON number, at most two decimals; converted with `cents()`. */
export const Money = Type.Number({ minimum: 0, maximum: 9_999_999.99 });
/**
 * `YYYY-MM-DD` (a day in the shop's time zone) or an RFC 3339 date-time; converted with `timestamp()`.
 * One line of text, so an HTTP write's validator refuses a control character in it as in any text.
 */
export const DateValue = TextLine({ maxLength: 40 });

/** `{et, en?, ru?}`: Estonian is required, the others optional. */
export const Translated = (maxLength = 200) =>
  Type.Object(
    { et: Name(maxLength), en: Type.Optional(Name(maxLength)), ru: Type.Optional(Name(maxLength)) },
    { additionalProperties: false },
  );
/** Optional texts per language, e.g. descriptions. */
export const TranslatedText = (maxLength: number) =>
  Type.Object(
    { et: Type.Optional(Text(maxLength)), en: Type.Optional(Text(maxLength)), ru: Type.Optional(Text(maxLength)) },
    { additionalProperties: false },
  );
export type Translated = Static<ReturnType<typeof Translated>>;
export type TranslatedText = Static<ReturnType<typeof TranslatedText>>;

/**
 * A parser for lines of one schema: a control character where the schema does not allow it, else
 * the first schema error (lengths counted in code points, as over HTTP: compileLineCheck), as
 * `/path: message` (line-messages.ts); then the extra checks (money, dates, barcodes) a schema
 * cannot express, which throw LineError.
 */
export function lineParser<S extends TSchema, R>(
  schema: S,
  convert: (value: Static<S>) => R,
): (value: unknown) => { record: R } | { error: string } {
  const check = compileLineCheck(schema);
  return (value) => {
    const control = controlCharacter(schema, value, '');
    if (control !== undefined) return { error: control };
    if (!check.Check(value)) {
      const first = check.Errors(value).First();
      return { error: first ? lineMessage(first) : '(line): is invalid' };
    }
    try {
      return { record: convert(value) };
    } catch (error) {
      if (error instanceof LineError) return { error: error.message };
      throw error;
    }
  };
}

const CONTROL = /\p{Cc}/u;
const CONTROL_IN_TEXT = /[^\P{Cc}\t\n\r]/u;

/**
 * The first string of a line, in the fields its schema names, that holds a control character
 * (in a `Text`, one other than tab and line breaks), as the message for the line; else undefined.
 */
function controlCharacter(schema: TSchema, value: unknown, path: string): string | undefined {
  const shape = schemaOf(schema, value);
  if (shape === undefined) return undefined;
  if (typeof value === 'string') {
    const multiline = shape.multiline === true;
    const found = (multiline ? CONTROL_IN_TEXT : CONTROL).exec(value);
    if (found === null) return undefined;
    const code = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    return multiline
      ? `${path}: contains the control character ${code}; a text may hold tabs and line breaks, no other control characters`
      : `${path}: contains the control character ${code}; control characters (tabs and line breaks too) are not allowed here`;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = shape.items ? controlCharacter(shape.items as TSchema, item, `${path}/${index}`) : undefined;
      if (found !== undefined) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    const properties = (shape.properties ?? {}) as Record<string, TSchema>;
    for (const [key, item] of Object.entries(value)) {
      const found = Object.hasOwn(properties, key) ? controlCharacter(properties[key]!, item, `${path}/${key}`) : undefined;
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The schema a value is checked against: of a union (`nullable(...)`), the member of its JSON type. */
function schemaOf(schema: TSchema, value: unknown): TSchema | undefined {
  if (!Array.isArray(schema.anyOf)) return schema;
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return (schema.anyOf as TSchema[]).find((member) => member.type === type);
}

/**
 * Euros to integer cents, exactly: the number's shortest decimal form is split at the point, so
 * 0.29 is 29 cents (where 0.29 * 100 is 28.999999999999996). More than two decimals is refused.
 */
export function cents(euros: number, field: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(euros));
  if (!match) {
    throw new LineError(
      euros < 0 ? `/${field}: must not be negative` : `/${field}: ${euros} is not an amount in euros with at most two decimals`,
    );
  }
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export function optionalCents(euros: number | null | undefined, field: string): number | null {
  return euros === null || euros === undefined ? null : cents(euros, field);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Unix ms of `YYYY-MM-DD`, the start of that day in the shop's time zone (the shop's back office means
 * Tallinn days: 2026-12-01 is 2026-11-30T22:00:00Z), or of an RFC 3339 date-time, whose offset says
 * what it means; a bad or impossible date is a KeyedLineError (an admin edit answers it translated).
 */
export function timestamp(value: string, field: string): number {
  return parseDate(value, field, (date) => instantOf(date, 0));
}

/**
 * Unix ms of a date shown back as a date, not a moment something starts (a book's release date): a
 * date alone is its UTC midnight, which the wire's `toIsoDate` gives back as the same date.
 */
export function calendarDate(value: string | null | undefined, field: string): number | null {
  if (value === null || value === undefined) return null;
  return parseDate(value, field, (date) => Date.parse(`${date}T00:00:00Z`));
}

/** A date or date-time checked and converted; `ofDate` turns a valid date alone into its instant. */
function parseDate(value: string, field: string, ofDate: (date: string) => number): number {
  const ms = instantOfText(value, ofDate);
  if (ms === undefined) throw new KeyedLineError(field, 'import.notADate', { value: excerpt(value, 40) });
  return ms;
}

/**
 * Unix ms of an RFC 3339 date-time, for a moment a record names (when the back office created an
 * order): a date alone is refused, as it says no time of day; a bad one is a KeyedLineError.
 */
export function dateTime(value: string, field: string): number {
  const ms = instantOfText(value);
  if (ms === undefined) throw new KeyedLineError(field, 'import.notADateTime', { value: excerpt(value, 40) });
  return ms;
}

/**
 * The instant of an RFC 3339 date-time, or of a date alone as `ofDate` says (none: not accepted);
 * undefined for anything else, a day the calendar lacks (2026-02-30) included.
 */
function instantOfText(value: string, ofDate?: (date: string) => number): number | undefined {
  const date = ofDate ? DATE.exec(value) : null;
  const parts = date ?? DATE_TIME.exec(value);
  if (!parts) return undefined;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const ms = Date.parse(date ? `${value}T00:00:00Z` : value.replace(' ', 'T'));
  // Date.parse rolls 2026-02-30 over to March; a calendar date must survive the round trip.
  const check = new Date(Date.UTC(year, month - 1, day));
  if (Number.isNaN(ms) || check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  return date && ofDate ? ofDate(value) : ms;
}

export function optionalTimestamp(value: string | null | undefined, field: string): number | null {
  return value === null || value === undefined ? null : timestamp(value, field);
}

/** Whether a date value is a date alone (`YYYY-MM-DD`), not a date-time. */
export function isDateOnly(value: string): boolean {
  return DATE.test(value);
}

/**
 * An end of validity: a date alone means "to the end of that day" in the shop's time zone, the next
 * Tallinn midnight (the stored end is exclusive; 2026-12-14 ends at 2026-12-14T22:00:00Z).
 */
export function endTimestamp(value: string | null | undefined, field: string): number | null {
  if (value === null || value === undefined) return null;
  const ms = timestamp(value, field);
  return isDateOnly(value) ? endOfLocalDay(value) : ms;
}

/**
 * A window of validity [start, end) of a line: the start as `timestamp` reads it, the end as
 * `endTimestamp` (a date alone includes that day), either absent (open at that end). An end not after
 * the start is a KeyedLineError on the end's field, `{path}{fields[1]}` (`blocks/0/visibleTo`), which
 * names the start's field; the one wording of the rule for every kind with a window.
 */
export function validityWindow(
  start: string | null | undefined,
  end: string | null | undefined,
  fields: readonly [start: string, end: string],
  path = '',
): { start: number | null; end: number | null } {
  const from = optionalTimestamp(start, `${path}${fields[0]}`);
  const to = endTimestamp(end, `${path}${fields[1]}`);
  if (from !== null && to !== null && to <= from) {
    throw new KeyedLineError(`${path}${fields[1]}`, 'import.windowOrder', { start: fields[0] });
  }
  return { start: from, end: to };
}

/** The digits of an EAN/ISBN as written with hyphens or spaces; ISBN-10 may end in X. */
function barcodeDigits(value: string, field: string): string {
  const digits = value.replace(/[\s-]/g, '').toUpperCase();
  if (!/^\d+X?$/.test(digits)) throw new LineError(`/${field}: "${excerpt(value, 40)}" is not an EAN or ISBN`);
  return digits;
}

/** GTIN check digit (EAN-8, UPC-A, EAN-13 = ISBN-13): weights 3 and 1 from the right. */
function gtinValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length - 1; i += 1) sum += Number(digits[digits.length - 2 - i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}

function isbn10Valid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 10; i += 1) sum += (digits[i] === 'X' ? 10 : Number(digits[i])) * (10 - i);
  return sum % 11 === 0 && !digits.slice(0, 9).includes('X');
}

/**
 * A product barcode, checked and normalised: EAN-13/ISBN-13, EAN-8 or UPC-A (GTIN check digit),
 * or ISBN-10 (mod 11). Returns the digits (ISBN-10 keeps a final X).
 */
export function barcode(value: string, field: string): string {
  const digits = barcodeDigits(value, field);
  const valid =
    digits.length === 10 ? isbn10Valid(digits) : [8, 12, 13].includes(digits.length) && /^\d+$/.test(digits) && gtinValid(digits);
  if (!valid) {
    const kind = digits.length === 10 ? 'ISBN-10' : digits.length === 13 ? 'EAN-13/ISBN-13' : `${digits.length}-digit code`;
    throw new LineError(`/${field}: "${excerpt(value, 40)}" is not a valid ${kind} (check digit or length)`);
  }
  return digits;
}

/** The product's main barcode: an ISBN-10 is stored as its ISBN-13 (978 prefix), the form books carry. */
export function mainBarcode(value: string, field: string): string {
  const digits = barcode(value, field);
  if (digits.length !== 10) return digits;
  const body = `978${digits.slice(0, 9)}`;
  for (let check = 0; check <= 9; check += 1) if (gtinValid(`${body}${check}`)) return `${body}${check}`;
  throw new Error('unreachable: every ISBN-13 body has a check digit');
}

/** The rows of a translated name: one per language given. */
export function nameRows(names: Translated, extra?: TranslatedText): Array<{ language: string; name: string; text: string | null }> {
  return (['et', 'en', 'ru'] as const)
    .filter((language) => names[language] !== undefined)
    .map((language) => ({ language, name: names[language]!, text: extra?.[language] ?? null }));
}

/**
 * Refuses a list that names the same thing twice, which would be ambiguous about its position: a
 * KeyedLineError (an admin edit answers it translated).
 */
export function unique(values: readonly string[], field: string): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw new KeyedLineError(field, 'import.listedTwice', { value });
    seen.add(value);
  }
}
