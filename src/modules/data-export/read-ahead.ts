import { systemClock, type Clock } from '../../infra/clock.js';
import type { Boundary } from './collection.js';

export interface LoadedPage {
  items: unknown[];
  last: Boundary | undefined;
}

export interface ReadAheadOptions {
  /** How long a page read ahead may be served; older ones are read again. */
  ttlMs: number;
  /** Pages kept at most (about 300 KB each at 1000 per page); the oldest go first. */
  maxPages: number;
}

export const DEFAULT_READ_AHEAD: ReadAheadOptions = { ttlMs: 5_000, maxPages: 16 };

/**
 * Pages read ahead for clients that walk a collection page by page. Between two requests of a
 * walk the service would sit idle while the client reads the page and asks for the next one; after
 * serving page N it reads page N + 1 instead, and the request for it finds the page ready. A page
 * is served once (a second client walking the same pages reads its own) and only for a few seconds,
 * so what it shows is as fresh as the cached total count beside it. A read that fails is forgotten:
 * the request reads the page itself.
 */
export function createReadAhead(options: ReadAheadOptions = DEFAULT_READ_AHEAD, clock: Clock = systemClock) {
  const pages = new Map<string, { page: Promise<LoadedPage | undefined>; expires: number }>();
  return {
    /** The page read ahead under `key`, if there is a fresh one (removed: it is served once). */
    take(key: string): Promise<LoadedPage | undefined> | undefined {
      const entry = pages.get(key);
      if (entry === undefined) return undefined;
      pages.delete(key);
      return entry.expires > clock.now() ? entry.page : undefined;
    },

    /** Reads a page under `key` soon, unless it is already there or on its way. */
    schedule(key: string, read: () => Promise<LoadedPage>): void {
      if (options.maxPages <= 0 || pages.has(key)) return;
      let start!: () => void;
      const started = new Promise<void>((resolve) => (start = resolve));
      // After the current response is on its way: the client is not kept waiting for the read.
      const page = started.then(read).catch(() => undefined);
      pages.set(key, { page, expires: clock.now() + options.ttlMs });
      while (pages.size > options.maxPages) pages.delete(pages.keys().next().value!);
      setImmediate(start);
    },
  };
}

export type ReadAhead = ReturnType<typeof createReadAhead>;
