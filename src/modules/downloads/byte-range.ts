// The Range header of a download (RFC 9110 §14): one range of bytes, `a-b`, `a-` or `-n`. Several
// ranges at once (multipart/byteranges) are not served: the whole file is answered instead, which
// the RFC allows. A range that starts past the end is unsatisfiable (416). A range sent with
// If-Range counts only while the file is the one the client's first piece came from (§13.1.5).

import { digest } from '../../infra/digest.js';

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

// The unit is case-insensitive (RFC 9110 §14.1); a position has any number of digits (§14.1.1).
const SINGLE = /^bytes\s*=\s*(\d*)\s*-\s*(\d*)$/i;

/**
 * A position of the header. One past Number.MAX_SAFE_INTEGER is past the end of every file: it is
 * Infinity, not a number rounded (or a header ignored), so that `bytes=18446744073709551616-` is a
 * 416 and not the whole file, and a last position or a suffix that large reaches to the end.
 */
function position(digits: string): number {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : Infinity;
}

export function byteRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE.exec(header.trim());
  // Another unit, several ranges or a malformed one: ignored, as the RFC says a server may.
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // The last n bytes; all of them when n is at least the size.
    const suffix = position(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = position(first);
  // `a-b` with b before a is not a valid range: ignored.
  if (last !== '' && position(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: last === '' ? size - 1 : Math.min(position(last), size - 1) };
}

/**
 * The entity tag of a stored file: a strong validator, since the bytes under one storage key never
 * change (every upload is stored under a new random key, and a replaced file's key is deleted). From a
 * hash of the key, so the answer does not show how the file store is laid out.
 */
export function fileTag(storageKey: string): string {
  return `"${digest('sha256', storageKey, 'base64url').slice(0, 22)}"`;
}

/**
 * The Range to serve: with If-Range, only when it is the file's current entity tag, compared strongly
 * (a weak tag or a date never matches: these answers send no Last-Modified). Otherwise the whole file
 * goes out, never a piece of a file replaced since the client's first piece.
 */
export function rangeToServe(range: string | undefined, ifRange: string | undefined, tag: string): string | undefined {
  return ifRange === undefined || ifRange.trim() === tag ? range : undefined;
}
