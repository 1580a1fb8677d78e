// Text as the index sees it. One normaliser serves documents and queries on both engines, so
// "tode" finds "Tõde" and "Dostojevski" behaves the same on SQLite and PostgreSQL: case and
// diacritics are folded here (õ ä ö ü š ž, ё й, and the letters NFKD does not decompose), and
// only runs of letters and digits survive as terms. Engine query syntax is built from those
// terms alone, so no user text ever reaches FTS5 or to_tsquery syntax.

/** Longer queries are cut to this many characters before they are looked at. */
export const MAX_QUERY_CHARS = 200;
/** Terms after the first this many are dropped: more would only narrow and cost. */
export const MAX_TERMS = 8;
/** Autocomplete waits for this many characters of the last word before it suggests anything. */
export const MIN_SUGGEST_CHARS = 2;

const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ħ: 'h' };
const SPECIAL = /[ßæœøđðþłıħ]/g;
const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** Lower case without diacritics: "Tõde ja ÕIGUS" -> "tode ja oigus". */
export function fold(text: string): string {
  // Plain ASCII has no marks or special letters: lower case is all (folding a first import's documents spends most of its time here).
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(SPECIAL, (letter) => LETTERS[letter] ?? letter);
}

/** The folded terms of a text, in order (duplicates kept). */
export function terms(text: string): string[] {
  return fold(text)
    .split(SEPARATORS)
    .filter((term) => term.length > 0);
}

/** A document field as stored in the index: its folded terms separated by single spaces. */
export function indexText(...parts: Array<string | null | undefined>): string {
  return parts.flatMap((part) => (part ? terms(part) : [])).join(' ');
}

/**
 * Title keys longer than this are not kept (search_product.title_key is then empty): a query is cut to
 * MAX_QUERY_CHARS before it is folded, so no typed text reaches them, and PostgreSQL's b-tree takes at
 * most 2,704 bytes an entry (a folded character may take 4 bytes).
 */
export const MAX_TITLE_KEY_CHARS = 2 * MAX_QUERY_CHARS;

/**
 * A title as an exact match compares it: its folded terms, every one in order (one-letter words and
 * repeats kept), so "Tõde ja õigus I" and "TÕDE JA ÕIGUS I" have one key and "Tõde ja õigus" another.
 * The index keeps each product's (search_product.title_key) and a typed text's is compared with it.
 */
export function titleKey(text: string): string {
  return terms(text).join(' ');
}

export type ParsedQuery =
  | { kind: 'none' }
  | { kind: 'codes'; codes: string[] }
  /** `titleKey`: the whole text's (the terms may leave words out), which a product titled exactly so has too. */
  | { kind: 'text'; terms: string[]; prefix: boolean; titleKey: string };

/**
 * What a shopper typed, made safe: nothing (blank), an EAN/ISBN lookup, or terms that must all
 * match, the last one as a prefix while it is still being typed (no separator after it).
 * A text of only punctuation is `text` with no terms: it matches nothing.
 */
export function parseQuery(raw: string | undefined): ParsedQuery {
  const text = (raw ?? '').slice(0, MAX_QUERY_CHARS);
  if (text.trim() === '') return { kind: 'none' };
  const codes = productCodes(text);
  if (codes) return { kind: 'codes', codes };
  return { kind: 'text', ...parseTerms(text), titleKey: titleKey(text) };
}

/**
 * Whether a term says something to a search. A one-letter word (a, b, ...) matches a large part of
 * any catalogue, narrows nothing and, as a prefix, expands to much of the vocabulary; a single digit
 * is kept (a volume number: "Harry Potter 7").
 */
function meaningful(term: string): boolean {
  return term.length >= 2 || /^\p{N}$/u.test(term);
}

/**
 * Terms of a text, with no code lookup (names within a facet). One-letter words are dropped when
 * the text has a longer word; a text of one-letter words only keeps them (a lone letter is an exact
 * word, and a list of them is refused by the routes: isOneLetterWordList).
 */
export function parseTerms(raw: string): { terms: string[]; prefix: boolean } {
  const text = raw.slice(0, MAX_QUERY_CHARS);
  const all = terms(text);
  const words = all.some(meaningful) ? all.filter(meaningful) : all;
  const unique = [...new Set(words)].slice(0, MAX_TERMS);
  const last = unique.at(-1);
  // The last word is still being typed when nothing follows it (and it was kept). A prefix of one
  // letter would expand to a large part of the vocabulary, beside other words too (the index reads
  // every expansion before it narrows): it is no prefix.
  const stillTyping = /[\p{L}\p{N}]$/u.test(fold(text)) && last === all.at(-1);
  const prefix = stillTyping && last !== undefined && last.length >= MIN_SUGGEST_CHARS;
  return { terms: unique, prefix };
}

/** Whether a text is nothing but two or more one-letter words ("a b c d e f g h"): refused, it can only cost. */
export function isOneLetterWordList(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const all = terms(raw.slice(0, MAX_QUERY_CHARS));
  return all.length >= 2 && !all.some(meaningful);
}

/** A stable text for cache keys. */
export function queryKey(query: ParsedQuery): string {
  if (query.kind === 'none') return '';
  if (query.kind === 'codes') return `#${query.codes.join(',')}`;
  // The title key holds every term (the terms follow from it and the prefix), and tells "tõde ja õigus i" from
  // "tõde ja õigus", whose terms are the same but whose exact titles are not.
  return `${query.titleKey}${query.prefix ? '*' : ''}`;
}

/** Characters of the last term: autocomplete and facet search wait until there are enough. */
export function lastTermLength(query: ParsedQuery): number {
  return query.kind === 'text' ? (query.terms.at(-1)?.length ?? 0) : query.kind === 'codes' ? 13 : 0;
}

const LABEL = /^\s*(isbn(-1[03])?|ean(-13)?)\s*:?\s*/i;

/**
 * The codes to look up when the text is an EAN-13, EAN-8, ISBN-13 or ISBN-10, with or without
 * hyphens and spaces (and an "ISBN" label): both ISBN forms of a book, as the catalogue may hold
 * either one (product.ean is the 13-digit form; product_alt_code may carry the 10-digit one).
 */
export function productCodes(text: string): string[] | undefined {
  const compact = text.replace(LABEL, '').replace(/[\s-]+/g, '');
  if (/^\d{13}$/.test(compact) || /^\d{8}$/.test(compact)) {
    const isbn10 = compact.length === 13 && compact.startsWith('978') ? toIsbn10(compact) : undefined;
    return isbn10 ? [compact, isbn10] : [compact];
  }
  if (/^\d{9}[\dX]$/i.test(compact)) {
    const isbn10 = compact.toUpperCase();
    return [toIsbn13(isbn10), isbn10];
  }
  return undefined;
}

function toIsbn13(isbn10: string): string {
  const body = `978${isbn10.slice(0, 9)}`;
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

function toIsbn10(isbn13: string): string {
  const body = isbn13.slice(3, 12);
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (10 - index), 0);
  const check = (11 - (sum % 11)) % 11;
  return `${body}${check === 10 ? 'X' : String(check)}`;
}
