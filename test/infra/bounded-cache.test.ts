import { describe, expect, it } from 'vitest';
import { boundedCache } from '../../src/infra/bounded-cache.js';

// A value set while a load of the same key is under way was read later than the load's: the load
// must not replace it when it ends (a basket write keeps the product it read; a read that began
// before the write must not put the older copy back for the whole period).

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('boundedCache: a load and a set of the same key', () => {
  it('getMany: a load that began before a set does not replace it', async () => {
    const cache = boundedCache<number, string>(60_000, 100);
    const load = deferred<Map<number, string>>();
    const reading = cache.getMany([1, 2], () => load.promise);
    cache.set(1, 'written');
    load.resolve(
      new Map([
        [1, 'read before'],
        [2, 'read'],
      ]),
    );
    // The read answers with what it read; the cache keeps the later value.
    expect(Object.fromEntries(await reading)).toEqual({ 1: 'read before', 2: 'read' });
    expect(cache.peek(1)).toBe('written');
    expect(cache.peek(2)).toBe('read');
  });

  it('get: the same', async () => {
    const cache = boundedCache<string, number>(60_000, 100);
    const load = deferred<number>();
    const reading = cache.get('k', () => load.promise);
    cache.set('k', 2);
    load.resolve(1);
    expect(await reading).toBe(1);
    expect(cache.peek('k')).toBe(2);
  });
});

describe('boundedCache.getMany', () => {
  it('loads a missing key once, however often the keys name it', async () => {
    for (const ttl of [0, 60_000]) {
      const cache = boundedCache<number, string>(ttl, 100);
      const asked: number[][] = [];
      const found = await cache.getMany([1, 2, 1, 3, 2], async (missing) => {
        asked.push(missing);
        return new Map(missing.map((key) => [key, `v${key}`]));
      });
      expect(asked, `ttl ${ttl}`).toEqual([[1, 2, 3]]);
      expect(Object.fromEntries(found)).toEqual({ 1: 'v1', 2: 'v2', 3: 'v3' });
    }
  });
});
