import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import type { TestApp } from '../helpers/test-app.js';

/** An operator API key of the app's database. */
export function operatorKey(t: Pick<TestApp, 'database'>): Promise<string> {
  return createApiKey(t.database.db, `blog-${Math.random().toString(36).slice(2)}`, Date.now());
}

/** Imports NDJSON lines of a kind over POST /admin/import/:kind. */
export async function importContent(t: Pick<TestApp, 'app' | 'database'>, kind: string, lines: unknown[]) {
  const key = await operatorKey(t);
  return t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'),
  });
}
