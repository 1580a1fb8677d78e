import { describe, expect, it } from 'vitest';
import { createExportPager, DEFAULT_PAGER_OPTIONS } from '../../src/modules/data-export/export-pager.js';
import { createReadAhead } from '../../src/modules/data-export/read-ahead.js';

describe('the keyset boundary cache', () => {
  it('starts a page after the nearest known earlier boundary, with an OFFSET for the pages in between', () => {
    const pager = createExportPager();
    expect(pager.start('w', 100, 1)).toEqual({ after: undefined, offset: 0 });
    expect(pager.start('w', 100, 9000)).toEqual({ after: undefined, offset: 899_900 });
    pager.remember('w', 100, 8999, { time: 5, id: 7 });
    expect(pager.start('w', 100, 9000)).toEqual({ after: { time: 5, id: 7 }, offset: 0 });
    expect(pager.start('w', 100, 9003)).toEqual({ after: { time: 5, id: 7 }, offset: 300 });
    // Per walk (collection and filter) and page size.
    expect(pager.start('other', 100, 9000).after).toBeUndefined();
    expect(pager.start('w', 50, 9000).after).toBeUndefined();
  });

  it('is bounded in size and time', async () => {
    const pager = createExportPager({ ...DEFAULT_PAGER_OPTIONS, maxBoundaries: 2, boundaryTtlMs: 20 });
    pager.remember('w', 10, 1, { time: 1, id: 1 });
    pager.remember('w', 10, 2, { time: 2, id: 2 });
    pager.remember('w', 10, 3, { time: 3, id: 3 });
    expect(pager.start('w', 10, 2)).toEqual({ after: undefined, offset: 10 });
    expect(pager.start('w', 10, 4).after).toEqual({ time: 3, id: 3 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(pager.start('w', 10, 4).after).toBeUndefined();
  });

  it("forgets from a short page on only that walk's boundaries, also after some were evicted", () => {
    const pager = createExportPager({ ...DEFAULT_PAGER_OPTIONS, maxBoundaries: 6 });
    for (const page of [1, 2, 3, 4]) pager.remember('w', 10, page, { time: page, id: page });
    pager.remember('w', 20, 3, { time: 30, id: 30 });
    pager.remember('other', 10, 3, { time: 300, id: 300 });
    pager.remember('w', 10, 5, { time: 5, id: 5 }); // evicts page 1 of w
    pager.forgetFrom('w', 10, 3);
    expect(pager.start('w', 10, 6)).toEqual({ after: { time: 2, id: 2 }, offset: 30 });
    expect(pager.start('w', 20, 4).after).toEqual({ time: 30, id: 30 });
    expect(pager.start('other', 10, 4).after).toEqual({ time: 300, id: 300 });
    // Remembered again after being forgotten, a page is found and forgotten again.
    pager.remember('w', 10, 3, { time: 33, id: 33 });
    expect(pager.start('w', 10, 4).after).toEqual({ time: 33, id: 33 });
    pager.forgetFrom('w', 10, 2);
    expect(pager.start('w', 10, 4)).toEqual({ after: undefined, offset: 30 });
  });

  it('counts once per key while cached, and shares a count in flight', async () => {
    const pager = createExportPager();
    let counts = 0;
    const count = async () => {
      counts += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return 42;
    };
    expect(await Promise.all([pager.total('a', count), pager.total('a', count)])).toEqual([42, 42]);
    expect(await pager.total('a', count)).toBe(42);
    expect(counts).toBe(1);
    await pager.total('b', count);
    expect(counts).toBe(2);
  });

  it('with a TTL of 0 counts every time, and forgets a failed count', async () => {
    const pager = createExportPager({ ...DEFAULT_PAGER_OPTIONS, countTtlMs: 0 });
    let counts = 0;
    await pager.total('a', async () => ++counts);
    await pager.total('a', async () => ++counts);
    expect(counts).toBe(2);
    await expect(pager.total('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await pager.total('b', async () => 7)).toBe(7);
  });
});

describe('the read-ahead', () => {
  it('serves a page read ahead once, and not after its TTL', async () => {
    const ahead = createReadAhead({ ttlMs: 30, maxPages: 4 });
    let reads = 0;
    const read = async () => ({ items: [++reads], last: undefined });
    ahead.schedule('p2', read);
    ahead.schedule('p2', read);
    expect(await ahead.take('p2')).toEqual({ items: [1], last: undefined });
    expect(ahead.take('p2')).toBeUndefined();
    ahead.schedule('p3', read);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ahead.take('p3')).toBeUndefined();
    expect(reads).toBe(2);
  });

  it('forgets a failed read and keeps at most maxPages', async () => {
    const ahead = createReadAhead({ ttlMs: 1000, maxPages: 1 });
    ahead.schedule('bad', () => Promise.reject(new Error('down')));
    expect(await ahead.take('bad')).toBeUndefined();
    ahead.schedule('a', async () => ({ items: ['a'], last: undefined }));
    ahead.schedule('b', async () => ({ items: ['b'], last: undefined }));
    expect(ahead.take('a')).toBeUndefined();
    expect((await ahead.take('b'))?.items).toEqual(['b']);
  });
});
