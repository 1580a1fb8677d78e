// The form old URLs are stored and looked up in, so `/Old/Page/`, `/Old/Page` and
// `https://shop.example/Old/Page#top` find the same redirect: the path and query of a full URL, no
// fragment, no trailing slash (but `/` itself). Case and the query are kept: old systems told
// `/Book?id=1` from `/book?id=2`. A percent escape's hex digits are not case (RFC 3986 2.1: `%c3%a4` is
// `%C3%A4`): they are written in upper case, as a browser and the URL parser write them, so an old path
// imported with lower-case escapes (old systems and spreadsheets write them so) is found from any spelling
// (migration 2026_12_09_1030 wrote the rows stored before).

export const MAX_PATH_LENGTH = 1000;
/**
 * What a stored path may take in UTF-8: it is unique per store (redirect_store_path_uq), and a
 * PostgreSQL b-tree entry holds at most 2,704 bytes, which 1,000 characters of CJK or Cyrillic text
 * exceed (a 500 there). A path of a full URL is percent-encoded ASCII and within it already.
 */
export const MAX_PATH_BYTES = 2000;

/** The normalised path, or undefined when `value` is neither a path (`/...`) nor an http(s) URL. */
export function normalisePath(value: string): string | undefined {
  let text = value.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      text = `${url.pathname}${url.search}`;
    } catch {
      return undefined;
    }
  }
  if (!text.startsWith('/') || text.startsWith('//') || /[\s\p{Cc}]/u.test(text)) return undefined;
  const hash = text.indexOf('#');
  if (hash >= 0) text = text.slice(0, hash);
  const query = text.indexOf('?');
  let path = query >= 0 ? text.slice(0, query) : text;
  const search = query >= 0 ? text.slice(query) : '';
  path = path.replace(/\/+$/, '') || '/';
  const normalised = upperCaseEscapes(search === '?' ? path : `${path}${search}`);
  return normalised.length <= MAX_PATH_LENGTH ? normalised : undefined;
}

const upperCaseEscapes = (text: string) => text.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());

/** Where a target lives for the front-end: a path of the store's front-end, or a full URL as it is. */
export function targetUrl(frontendUrl: string, target: string): string {
  return target.startsWith('/') ? `${frontendUrl}${target}` : target;
}

/**
 * The path of the store's front-end a full URL target leads to (`<front-end URL>/kodu` -> `/kodu`), or
 * undefined for another site's URL: the answer's `url` is then the one a path target gives.
 */
export function frontEndPath(frontendUrl: string, target: string): string | undefined {
  let base: URL;
  let url: URL;
  try {
    [base, url] = [new URL(frontendUrl), new URL(target)];
  } catch {
    return undefined;
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))) return undefined;
  return `${url.pathname.slice(prefix.length) || '/'}${url.search}`;
}

/**
 * Whether a redirect of the old path to the target path would loop: the front-end, sent to the
 * target, asks for it as an old URL, and a spelling of the old one (its escapes, a trailing slash, a
 * fragment) finds this redirect again.
 */
export function loopsBack(normalised: string, targetPath: string): boolean {
  const target = normalisePath(targetPath);
  return target !== undefined && pathSpellings(normalised).includes(target);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text with every percent-escaped character outside ASCII written as itself (`%C3%B5` -> `õ`, in
 * either case of hex); an escape of an ASCII character (`%2F`, `%20`, `%3F`) stays, as it means
 * something else than the character, and so does a run of escapes that is not UTF-8.
 */
function decodedOutsideAscii(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    let decoded: string;
    try {
      decoded = UTF8.decode(bytes);
    } catch {
      return run;
    }
    let out = '';
    let at = 0;
    for (const char of decoded) {
      const escapes = Buffer.byteLength(char) * 3;
      out += char.codePointAt(0)! < 0x80 ? run.slice(at, at + escapes) : char;
      at += escapes;
    }
    return out;
  });
}

/**
 * The text with every character outside ASCII percent-encoded as UTF-8, as a browser and the URL parser
 * send it; a lone surrogate (no character, which encodeURIComponent throws on) stays as it is.
 */
const encodedOutsideAscii = (text: string) =>
  text.replace(/[^\p{ASCII}]/gu, (char) => (/\p{Surrogate}/u.test(char) ? char : encodeURIComponent(char)));

/**
 * The spellings a normalised path may be stored under, itself first: a path outside ASCII is kept as
 * the import gave it, raw from a list of old URLs (`/raamatud/õpik`) or percent-encoded from a full URL
 * (the URL parser encodes it), and a front-end asks with what it has, a browser's location being
 * encoded. Each finds the other, as `/Old/Page/` finds `/Old/Page`.
 */
export function pathSpellings(path: string): string[] {
  const raw = decodedOutsideAscii(path);
  return [...new Set([path, raw, encodedOutsideAscii(raw)])];
}
