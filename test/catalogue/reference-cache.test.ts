import { afterEach, describe, expect, it, vi } from 'vitest';
import { referenceCache } from '../../src/modules/catalogue/reference-cache.js';

// The kept trees: loaded again when their version changes, kept while it stands, and never kept
// longer than a minute past their load (a replica behind the primary may have given old data
// under the new version).

afterEach(() => vi.useRealTimers());

function counting(version: { now: number }) {
  let loads = 0;
  let versionReads = 0;
  const cache = referenceCache<string, number>(
    0,
    async () => {
      versionReads += 1;
      return version.now;
    },
    async () => (loads += 1),
    'test-reference',
  );
  return { cache, loads: () => loads, versionReads: () => versionReads };
}

describe('referenceCache', () => {
  it('keeps a value while its version stands and loads again when it moves', async () => {
    const version = { now: 1 };
    const { cache, loads } = counting(version);
    expect(await cache.get('WEB:et')).toBe(1);
    expect(await cache.get('WEB:et')).toBe(1);
    expect(loads()).toBe(1);
    version.now = 2;
    expect(await cache.get('WEB:et')).toBe(2);
    expect(await cache.get('WEB:en')).toBe(3);
  });

  it('loads again a minute after the load even when the version stands', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const { cache, loads } = counting({ now: 7 });
    await cache.get('WEB:et');
    vi.setSystemTime(1_000_000 + 59_000);
    await cache.get('WEB:et');
    expect(loads()).toBe(1);
    vi.setSystemTime(1_000_000 + 61_000);
    expect(await cache.get('WEB:et')).toBe(2);
  });

  // The product page's statement reads the versions with the page: the cache must go by that.
  it('goes by a version its caller read instead of reading it again', async () => {
    const version = { now: 1 };
    const { cache, loads, versionReads } = counting(version);
    expect(await cache.get('WEB:et', 1)).toBe(1);
    expect(await cache.get('WEB:et', 1)).toBe(1);
    expect(loads()).toBe(1);
    expect(await cache.get('WEB:et', 2)).toBe(2);
    expect(versionReads()).toBe(0);
    expect(await cache.get('WEB:et')).toBe(3);
    expect(versionReads()).toBe(1);
  });
});
