import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';
import { importContent, iso, read } from '../content/content-helpers.js';
import { cacheStats } from '../../src/infra/metrics/cache-stats.js';

// A guest's answer kept in the process (http/response-cache.ts) lives no longer than its own
// max-age, which for content ends when something it shows starts or ends: a page that ends in 5 s
// is not replayed at 6 s for the rest of the 60 s the cache keeps answers. A replay says how long it
// was kept (Age), so a browser or CDN counts that time off the max-age instead of starting it again.
// The process's time is moved by faking Date (the app's clock and the cache both read it).

const SECOND = 1000;
const NOW = Math.floor(Date.now() / 1000) * 1000;

let t: TestApp;

beforeAll(async () => {
  let key: string;
  ({ t, key } = await createBackOfficeApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000' } }));
  const page = (slug: string, visibleTo?: number) => ({
    code: slug.toUpperCase(),
    store: 'WEB',
    slug,
    ...(visibleTo === undefined ? {} : { visibleTo: iso(visibleTo) }),
    translations: { et: { title: slug, body: '<p>x</p>' } },
  });
  const imported = await importContent(t, key, 'content-pages', [page('ends', NOW + 5 * SECOND), page('stays')]);
  expect(imported.json(), imported.body).toMatchObject({ errorCount: 0 });
});
afterAll(() => t.close());

const at = (ms: number) => vi.setSystemTime(ms);
afterEach(() => {
  vi.useRealTimers();
});

describe("a kept guest answer's lifetime", () => {
  it('is replayed with its age until its own max-age ends, then made again', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const first = await read(t, '/content-page/ends');
    expect(first.headers['cache-control']).toBe('public, max-age=5');
    expect(first.headers.age).toBeUndefined();
    at(NOW + 3 * SECOND + 400);
    const replayed = await read(t, '/content-page/ends');
    expect(replayed.statusCode).toBe(200);
    expect(replayed.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(replayed.headers['cache-control']).toBe('public, max-age=5');
    expect(replayed.headers.age).toBe('3');
    at(NOW + 5 * SECOND);
    // Past its end the page is gone: the handler ran again instead of replaying it, and the lookup
    // counts as a miss in /metrics (it was counted a hit while the entry outlived its max-age).
    const stats = cacheStats('guest-answers');
    const before = { ...stats };
    expect((await read(t, '/content-page/ends')).statusCode).toBe(404);
    expect(stats).toEqual({ hits: before.hits, misses: before.misses + 1 });
  });

  it('is never longer than the cache period, however long its max-age', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const first = await read(t, '/content-page/stays');
    expect(first.headers['cache-control']).toBe('public, max-age=600');
    at(NOW + 59 * SECOND);
    const replayed = await read(t, '/content-page/stays');
    expect(replayed.headers.age).toBe('59');
    expect(replayed.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    at(NOW + 60 * SECOND);
    // Made again: a fresh answer, not one 60 s old.
    expect((await read(t, '/content-page/stays')).headers.age).toBeUndefined();
  });
});
