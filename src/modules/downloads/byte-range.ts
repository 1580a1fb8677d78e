// The Range header of a download (RFC 9110 §14): one range of bytes, `a-b`, `a-` or `-n`. Several
// ranges at once (multipart/byteranges) are not served: the whole file is answered instead, which
// the RFC allows. A range that starts past the end is unsatisfiable (416).

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d{0,15})-(\d{0,15})$/;

export function byteRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE.exec(header.replace(/\s+/g, ''));
  // Another unit, several ranges or a malformed one: ignored, as the RFC says a server may.
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // The last n bytes; all of them when n is at least the size.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(first);
  // `a-b` with b before a is not a valid range: ignored.
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
