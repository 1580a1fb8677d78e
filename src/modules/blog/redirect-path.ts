// The form old URLs are stored and looked up in, so `/Old/Page/`, `/Old/Page` and
// `https://shop.example/Old/Page#top` find the same redirect: the path and query of a full URL, no
// fragment, no trailing slash (but `/` itself). Case and the query are kept: old systems told
// `/Book?id=1` from `/book?id=2`.

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
  const normalised = search === '?' ? path : `${path}${search}`;
  return normalised.length <= MAX_PATH_LENGTH ? normalised : undefined;
}

/** Where a target lives for the front-end: a path of the store's front-end, or a full URL as it is. */
export function targetUrl(frontendUrl: string, target: string): string {
  return target.startsWith('/') ? `${frontendUrl}${target}` : target;
}
