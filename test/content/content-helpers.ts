import { ndjson } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';

// What the content tests share: NDJSON bodies, the operator's import and single edits, and reads.

export { ndjson };

export function importContent(t: TestApp, key: string, kind: string, lines: unknown[], headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}`,
    headers: { ...headers, authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: ndjson(lines),
  });
}

export function putContent(t: TestApp, key: string, kind: string, code: string, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'PUT',
    url: `/admin/content/${kind}/${encodeURIComponent(code)}`,
    headers: { ...headers, authorization: `Bearer ${key}` },
    payload: body as object,
  });
}

export function deleteContent(t: TestApp, key: string, kind: string, code: string) {
  return t.app.inject({
    method: 'DELETE',
    url: `/admin/content/${kind}/${encodeURIComponent(code)}`,
    headers: { authorization: `Bearer ${key}` },
  });
}

export function read(t: TestApp, url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers });
}

/** RFC 3339 of a date relative to now, whole seconds (what the imports take). */
export const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();
export const DAY = 86_400_000;
