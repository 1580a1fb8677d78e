import { Readable } from 'node:stream';
import type { Boundary, ExportCollection, ExportContext } from './collection.js';
import { countInWindow } from './export-slice.repository.js';
import { settledPart, windowKey, type ExportWindow } from './export-window.js';
import type { ExportPager } from './export-pager.js';
import type { LoadedPage, ReadAhead } from './read-ahead.js';

/** Which page a request asks for (1-based), its size, and the rows before it. */
export interface PageWanted {
  page: number;
  perPage: number;
  offset: number;
}

export interface ExportPage {
  items: unknown[];
  total: number;
}

/** The part of the window a read shows now (`settledPart`). */
function shownPart(context: ExportContext, collection: ExportCollection, window: ExportWindow): ExportWindow {
  return collection.settles ? settledPart(window, context.settledUntil) : window;
}

/**
 * One page of a collection. The total is counted once per filter (see the pager); a page past the
 * end is answered from it without reading; any other page seeks from the nearest known boundary,
 * or comes ready from the read-ahead when the client is walking the pages in order.
 */
export async function exportPage(
  context: ExportContext,
  caches: { pager: ExportPager; readAhead: ReadAhead },
  collection: ExportCollection,
  window: ExportWindow,
  page: PageWanted,
): Promise<ExportPage> {
  const { pager, readAhead } = caches;
  // Keyed by the window asked for: the settled part only grows, and the rows a full page holds
  // are settled for good, so its boundary stays right as the cut moves on.
  const walk = `${collection.path}|${windowKey(window)}`;
  const shown = shownPart(context, collection, window);
  // The total and a page read ahead hold what the cut showed: a read of the same window once it
  // has ended and settled is answered whole (settleWait), so it must not take those of a cut read.
  const cut = `${walk}|${windowKey(shown) === windowKey(window) ? 'whole' : 'cut'}`;
  const total = await pager.total(cut, () => countInWindow(context.db, collection.table, shown));
  if (page.offset >= total) return { items: [], total };
  const read = (number: number): Promise<LoadedPage> => {
    const start = pager.start(walk, page.perPage, number);
    return collection.load(context, { window: shown, after: start.after, offset: start.offset, limit: page.perPage });
  };
  const key = (number: number) => `${cut}|${page.perPage}|${number}`;
  const { items, last } = (await readAhead.take(key(page.page))) ?? (await read(page.page));
  if (items.length === page.perPage && last !== undefined) {
    pager.remember(walk, page.perPage, page.page, last);
    if (page.offset + page.perPage < total) readAhead.schedule(key(page.page + 1), () => read(page.page + 1));
  } else {
    pager.forgetFrom(walk, page.perPage, page.page);
  }
  return { items, total };
}

export const STREAM_BATCH = 1000;

/** Where a stream tells how it ended (a pino logger fits). */
export interface StreamLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface StreamOptions {
  log: StreamLog;
  /** The last line of a stream that failed midway, e.g. `{"error": {...}}` in the API's error format. */
  failureLine: string;
  serialize?: (item: unknown) => string;
  batchSize?: number;
}

/** How streams ended in this process, for operators and tests. */
export const streamStats = { active: 0, completed: 0, aborted: 0, failed: 0 };

/**
 * Every row of the collection in the window as NDJSON, read in keyset batches: memory holds one
 * batch whatever the size of the table. The stream is pulled by the response, so a slow client
 * slows the reads (backpressure), and a client that goes away destroys it, which stops the reads
 * at the next batch. A read that fails midway ends the stream with one `{"error": {...}}` line
 * (the status, 200, is long gone), so a client can tell a failed stream from a complete one.
 */
export function exportStream(
  context: ExportContext,
  collection: ExportCollection,
  window: ExportWindow,
  { log, failureLine, serialize = JSON.stringify, batchSize = STREAM_BATCH }: StreamOptions,
): Readable {
  let outcome: 'completed' | 'aborted' | 'failed' = 'aborted';
  let rows = 0;
  const shown = shownPart(context, collection, window);
  async function* lines(): AsyncGenerator<string> {
    streamStats.active += 1;
    try {
      let after: Boundary | undefined;
      for (;;) {
        let batch: { items: unknown[]; last: Boundary | undefined };
        try {
          batch = await collection.load(context, { window: shown, after, offset: 0, limit: batchSize });
        } catch (err) {
          outcome = 'failed';
          log.error({ err, collection: collection.path, rows }, 'export stream failed');
          yield failureLine;
          return;
        }
        if (batch.items.length > 0) {
          rows += batch.items.length;
          let text = '';
          for (const item of batch.items) text += `${serialize(item)}\n`;
          yield text;
        }
        if (batch.items.length < batchSize || batch.last === undefined) {
          outcome = 'completed';
          return;
        }
        after = batch.last;
      }
    } finally {
      // Runs on completion, on failure, and when the response closes early and destroys the stream.
      streamStats.active -= 1;
      streamStats[outcome] += 1;
      log.info({ collection: collection.path, rows, outcome }, 'export stream ended');
    }
  }
  // Bytes, not objects: the buffer ahead of the socket is one batch at most.
  return Readable.from(lines(), { objectMode: false, highWaterMark: 1 });
}

/** Whether the client asked for NDJSON (Accept: application/x-ndjson, with a q above 0). */
export function wantsNdjson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'application/x-ndjson' && type !== 'application/ndjson') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
