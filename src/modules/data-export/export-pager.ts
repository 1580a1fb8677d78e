import { systemClock, type Clock } from '../../infra/clock.js';
import type { Boundary } from './collection.js';

export interface PagerOptions {
  /** How long a total count is reused for the same collection and filter. */
  countTtlMs: number;
  /** How long the boundary of a served page is kept. */
  boundaryTtlMs: number;
  /** At most this many boundaries are kept; the oldest go first. */
  maxBoundaries: number;
  /** How many pages back a request looks for a known boundary before it starts from the top. */
  maxLookBack: number;
}

export const DEFAULT_PAGER_OPTIONS: PagerOptions = {
  countTtlMs: 15_000,
  boundaryTtlMs: 10 * 60_000,
  maxBoundaries: 50_000,
  maxLookBack: 10_000,
};

/** Where to start reading a page: after a known boundary (a seek), then skipping `offset` rows. */
export interface PageStart {
  after: Boundary | undefined;
  offset: number;
}

/**
 * Makes deep paging cost what the first page costs. A partner walks pages 1..N of one collection
 * and filter; the last row of each page served (its keyset boundary) is kept, so page N+1 is read
 * with a seek after it instead of an OFFSET that scans every row before it. `page` keeps its
 * meaning: the boundary of page N is exactly where OFFSET N * perPage would start.
 *
 * Process memory, with a TTL and a size bound: with several API processes each keeps its own, and a
 * miss (another process served the page before, or the entry expired) falls back to the nearest
 * known earlier boundary plus an OFFSET, or to OFFSET from the top; the answer is the same, only
 * slower. Only full pages leave a boundary: a short last page may still grow.
 *
 * Total counts are kept per collection and filter for `countTtlMs`, and concurrent requests share
 * one count in flight, so a walk counts once rather than once per page.
 */
export function createExportPager(options: PagerOptions = DEFAULT_PAGER_OPTIONS, clock: Clock = systemClock) {
  // Oldest first, for the size bound; each entry names its walk's pages, so it leaves those too.
  const boundaries = new Map<string, { boundary: Boundary; expires: number; pages: string; page: number }>();
  // The pages of each walk and page size that hold a boundary, so forgetFrom reads only its walk's.
  const pagesByWalk = new Map<string, Set<number>>();
  const counts = new Map<string, { total: Promise<number>; expires: number }>();
  const pagesOf = (walk: string, perPage: number) => `${walk}|${perPage}|`;
  const boundaryKey = (walk: string, perPage: number, page: number) => `${pagesOf(walk, perPage)}${page}`;
  const forget = (key: string) => {
    const entry = boundaries.get(key);
    if (entry === undefined) return;
    boundaries.delete(key);
    const pages = pagesByWalk.get(entry.pages);
    pages?.delete(entry.page);
    if (pages?.size === 0) pagesByWalk.delete(entry.pages);
  };

  return {
    /** The total for `key`, counted by `count` at most once per TTL. */
    total(key: string, count: () => Promise<number>): Promise<number> {
      const now = clock.now();
      const cached = counts.get(key);
      if (cached !== undefined && cached.expires > now) return cached.total;
      const total = count();
      // Kept while in flight even with a TTL of 0, so concurrent requests share it.
      const entry = { total, expires: now + Math.max(options.countTtlMs, 0) };
      counts.set(key, entry);
      const settle = () => {
        if (options.countTtlMs <= 0 && counts.get(key) === entry) counts.delete(key);
      };
      total.then(settle, () => {
        if (counts.get(key) === entry) counts.delete(key);
      });
      if (counts.size > 10_000) counts.delete(counts.keys().next().value!);
      return total;
    },

    /** Where page `page` starts, from the nearest earlier page whose boundary is known. */
    start(walk: string, perPage: number, page: number): PageStart {
      const now = clock.now();
      const lowest = Math.max(1, page - 1 - options.maxLookBack);
      for (let known = page - 1; known >= lowest; known -= 1) {
        const key = boundaryKey(walk, perPage, known);
        const entry = boundaries.get(key);
        if (entry === undefined) continue;
        if (entry.expires <= now) {
          forget(key);
          continue;
        }
        return { after: entry.boundary, offset: (page - 1 - known) * perPage };
      }
      return { after: undefined, offset: (page - 1) * perPage };
    },

    /** Keeps the boundary of a full page just served. */
    remember(walk: string, perPage: number, page: number, boundary: Boundary): void {
      const key = boundaryKey(walk, perPage, page);
      const pages = pagesOf(walk, perPage);
      forget(key);
      boundaries.set(key, { boundary, expires: clock.now() + options.boundaryTtlMs, pages, page });
      pagesByWalk.set(pages, (pagesByWalk.get(pages) ?? new Set()).add(page));
      while (boundaries.size > options.maxBoundaries) forget(boundaries.keys().next().value!);
    },

    /**
     * Forgets the boundaries of page `page` and after it: the page came back short, so rows were
     * removed since they were kept (retention, erasure), and a seek after one of them would serve
     * again rows this page already holds. The next pages fall back to an OFFSET, as the spec's
     * `page` means.
     */
    forgetFrom(walk: string, perPage: number, page: number): void {
      for (const known of [...(pagesByWalk.get(pagesOf(walk, perPage)) ?? [])]) {
        if (known >= page) forget(boundaryKey(walk, perPage, known));
      }
    },

    clear(): void {
      boundaries.clear();
      pagesByWalk.clear();
      counts.clear();
    },
  };
}

export type ExportPager = ReturnType<typeof createExportPager>;
