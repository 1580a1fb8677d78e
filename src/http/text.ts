import { Type, type StringOptions, type TString } from '@sinclair/typebox';

// Text people type: a name, a city, a title on one line; a comment or a message on several. None
// of it may hold control characters (Unicode's Cc: U+0000-U+001F, U+007F-U+009F): they end up in
// mail headers and bodies, in the data export and in CSV files, where an escape, a backspace or a
// line break where one line is expected does harm. A text of several lines keeps tab, line feed
// and carriage return. Every body field of such text is one of these two builders, so the rule,
// its pattern in /docs and its field message are the same everywhere.
//
// The patterns are plain ECMA-262 (what JSON Schema and OpenAPI name) without \p{...}, so that a
// client's validator and TypeBox's compiler (no `u` flag) read them as Ajv does. Each is anchored
// at the start and has no nested repetition, so a long value is checked in linear time.

/** Control characters: Unicode's Cc, as the inside of a character class (for a code's own pattern). */
export const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
const CONTROL = CONTROL_CHARACTERS;
/** A character of a URL or a path (for a pattern): no white space, no control character. */
export const URL_CHARACTER = `[^\\s${CONTROL_CHARACTERS}]`;
/** The control characters a text of several lines refuses: Cc but tab, line feed, carriage return. */
const CONTROL_IN_TEXT = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
/** Fails on a value of nothing but white space (the empty string included). */
const NOT_BLANK = '(?!\\s*$)';

const PATTERNS = {
  line: `^[^${CONTROL}]*$`,
  filledLine: `^${NOT_BLANK}[^${CONTROL}]*$`,
  text: `^[^${CONTROL_IN_TEXT}]*$`,
  filledText: `^${NOT_BLANK}[^${CONTROL_IN_TEXT}]*$`,
};

const LINE_CONTROL = new RegExp(`[${CONTROL}]`);
const TEXT_CONTROL = new RegExp(`[${CONTROL_IN_TEXT}]`);

export interface TextOptions extends Omit<StringOptions, 'pattern' | 'format'> {
  /**
   * Whether a value of only white space is accepted. By default a text that must not be empty
   * (minLength 1 or more) must not be blank either, and one that may be empty may be blank.
   */
  blank?: boolean;
}

function text(options: TextOptions, multiline: boolean): TString {
  const { blank, ...rest } = options;
  const filled = blank === undefined ? (options.minLength ?? 0) > 0 : !blank;
  const pattern = multiline ? (filled ? PATTERNS.filledText : PATTERNS.text) : filled ? PATTERNS.filledLine : PATTERNS.line;
  return Type.String({ ...rest, pattern });
}

/** One line of text: no control characters at all (no tab, no line break). */
export const TextLine = (options: TextOptions = {}): TString => text(options, false);

/** Text of one or more lines: tabs and line breaks, no other control characters. */
export const MultilineText = (options: TextOptions = {}): TString => text(options, true);

/**
 * Why `value` failed a pattern, for the field's message: `control` when it holds a control character
 * (one the pattern refuses, for the texts above), `blank` when a text above is only white space;
 * undefined otherwise (a phone number's or a code's own pattern, failed by other characters).
 */
export function textPatternFailure(pattern: unknown, value: unknown): 'control' | 'blank' | undefined {
  if (typeof value !== 'string') return undefined;
  if (pattern === PATTERNS.text || pattern === PATTERNS.filledText) return TEXT_CONTROL.test(value) ? 'control' : 'blank';
  if (LINE_CONTROL.test(value)) return 'control';
  return pattern === PATTERNS.line || pattern === PATTERNS.filledLine ? 'blank' : undefined;
}
