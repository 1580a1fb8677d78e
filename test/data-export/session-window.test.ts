import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { T0, exportUser, insertSessionActions, ymdHis } from './fixtures.js';

// Session actions are deleted by the hourly clean-up (SESSION_ACTION_RETENTION_DAYS), so a `page`
// counted from the oldest row shifts under a partner who resumes a walk later: the collection
// takes createdFrom and createdTo, as the others that grow do, and the partner resumes by time.

let t: TestApp;
let authorization: string;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const times = (response: { json(): unknown }) => (response.json() as Array<{ createdAt: string }>).map((item) => item.createdAt);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const q = (ms: number) => encodeURIComponent(ymdHis(ms));

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
  // Ten actions one second apart from T0.
  await insertSessionActions(t.database.db, 10, T0);
});
afterAll(() => t?.close());

describe('GET /session with a creation window', () => {
  it('takes createdFrom and createdTo, both inclusive, createdTo to the end of its second', async () => {
    const response = await get(`/session?createdFrom=${q(T0 + 3000)}&createdTo=${q(T0 + 5000)}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(times(response)).toEqual([iso(T0 + 3000), iso(T0 + 4000), iso(T0 + 5000)]);
    expect(response.headers['x-pagination-total-count']).toBe('3');
  });

  it('a walk resumed by time after the clean-up neither skips nor repeats rows', async () => {
    const first = times(await get(`/session?createdFrom=${q(T0)}&per-page=4`));
    expect(first).toEqual([0, 1, 2, 3].map((i) => iso(T0 + i * 1000)));
    // The clean-up deletes the three oldest actions before the partner asks for more.
    await t.database.db
      .deleteFrom('session_action')
      .where('created_at', '<', T0 + 3000)
      .execute();
    const resumed = times(await get(`/session?createdFrom=${q(T0 + 4000)}&per-page=4`));
    expect(resumed).toEqual([4, 5, 6, 7].map((i) => iso(T0 + i * 1000)));
  });

  it.each([['createdFrom'], ['createdTo']])('a malformed %s is a 400 naming it', async (field) => {
    const body = expectErrorBody(await get(`/session?${field}=2026-11-01T12:00:00Z`), 400, 'Bad Request');
    expect(body.message).toContain(field);
    expect(body.message).toContain('2026-11-22 10:15:00');
  });

  it('the API document lists the window on /session', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/export/openapi.json' })).json() as {
      paths: Record<string, { get: { parameters: Array<{ name: string }> } }>;
    };
    expect(document.paths['/session']!.get.parameters.map((parameter) => parameter.name)).toEqual([
      'createdFrom',
      'createdTo',
      'page',
      'per-page',
    ]);
  });
});
