// Content-Disposition of a download (RFC 6266). A name of ASCII alone goes in `filename` as it is; any
// other name goes as UTF-8 in `filename*` (RFC 8187), with an ASCII fallback in `filename` for the
// few clients that read only that. No byte past ASCII is ever written raw: Node refuses a header
// character past U+00FF (a 500), and one between U+0080 and U+00FF each browser reads differently.

/** RFC 8187 attr-char: what `filename*` may hold without percent-encoding. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/** `attachment; filename="..."`, plus `filename*=UTF-8''...` when the name is not plain ASCII. */
export function attachmentDisposition(filename: string): string {
  const fallback = asciiFallback(filename);
  if (fallback === filename) return `attachment; filename="${filename}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${percentEncoded(filename)}`;
}

/** Letters without their accents (õ -> o, Ž -> Z); anything else past printable ASCII, and the quoted string's `"` and `\`, as `_`. */
function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["\\]/gu, '_');
}

/** The name's UTF-8 bytes (a lone surrogate as U+FFFD), each outside attr-char as %XX. */
function percentEncoded(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
