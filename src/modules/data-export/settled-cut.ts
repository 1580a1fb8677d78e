import { HttpError } from '../../http/errors.js';
import { endedBy, type ExportWindow } from './export-window.js';

/** How long a read of a window that has ended waits for the transactions open before its end to commit. */
export const OPEN_WRITES_WAIT_MS = 2000;
const POLL_MS = 100;

/**
 * Up to when a read at `now` (the settle wait done) may show rows: what is `settleMs` old, and
 * nothing stamped `settleMs` before the oldest transaction still open began. A writer stamps its
 * rows when it starts (an erasure, an import line, an order's processing, a campaign's products)
 * and they become visible when it commits, which may be long after; a partner that read past the
 * stamp meanwhile and resumes after it would never see them. So the cut waits for every open
 * transaction (on PostgreSQL; SQLite cannot tell, see README). A window that has ended is answered
 * whole or not at all: its read waits up to OPEN_WRITES_WAIT_MS for the transactions that may
 * still add to it, then is a 503 with Retry-After, since the partner moves on past a window it was
 * answered.
 */
export async function settledCut(
  oldestOpenTransaction: () => Promise<number | undefined>,
  window: ExportWindow,
  now: number,
  settleMs: number,
  sleep: (ms: number) => Promise<unknown> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<number> {
  const settled = now - settleMs;
  const end = endedBy(window, now);
  for (let waited = 0; ; waited += POLL_MS) {
    const open = await oldestOpenTransaction();
    const cut = open === undefined ? settled : Math.min(settled, open - settleMs);
    if (end === undefined || cut >= end) return cut;
    if (waited >= OPEN_WRITES_WAIT_MS) {
      throw new HttpError(503, 'dataExport.openWrites', {}, { 'Retry-After': String(Math.ceil(settleMs / 1000) + 1) });
    }
    await sleep(POLL_MS);
  }
}
