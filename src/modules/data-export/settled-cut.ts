import { HttpError } from '../../http/errors.js';
import { endedBy, type ExportWindow } from './export-window.js';

/** How long a read of a window that has ended waits for the transactions open before its end to commit. */
export const OPEN_WRITES_WAIT_MS = 2000;
const POLL_MS = 100;
/** How long a read from a replica waits for it to replay what its cut was decided on, before it reads the primary. */
export const REPLICA_CATCH_UP_WAIT_MS = 500;
const REPLICA_POLL_MS = 25;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The open transactions as the primary saw them (open-writes.repository.ts). */
export interface OpenTransactions {
  /** When the oldest began, on the app's clock; undefined when none is open (or SQLite). */
  oldest: number | undefined;
  /** The primary's WAL position once they were seen (PostgreSQL). */
  wal: string | undefined;
}

export interface SettledCut {
  /** Rows stamped later are not shown. */
  until: number;
  /** The primary's WAL position the cut was decided at: a replica must have replayed it to answer (replicaCaughtUp). */
  wal: string | undefined;
}

/**
 * Up to when a read at `now` (the settle wait done) may show rows: what is `settleMs` old, and
 * nothing stamped `settleMs` before the oldest transaction still open began. A writer stamps its
 * rows when it starts (an erasure, an import line, an order's processing, a campaign's stamp job)
 * and they become visible when it commits, which may be long after; a partner that read past the
 * stamp meanwhile and resumes after it would never see them. So the cut waits for every open
 * transaction (on PostgreSQL; SQLite cannot tell, see README). A window that has ended is answered
 * whole or not at all: its read waits up to OPEN_WRITES_WAIT_MS for the transactions that may
 * still add to it, then is a 503 with Retry-After, since the partner moves on past a window it was
 * answered.
 */
export async function settledCut(
  openTransactions: () => Promise<OpenTransactions>,
  window: ExportWindow,
  now: number,
  settleMs: number,
  sleep: (ms: number) => Promise<unknown> = pause,
): Promise<SettledCut> {
  const settled = now - settleMs;
  const end = endedBy(window, now);
  for (let waited = 0; ; waited += POLL_MS) {
    const { oldest, wal } = await openTransactions();
    const cut = oldest === undefined ? settled : Math.min(settled, oldest - settleMs);
    if (end === undefined || cut >= end) return { until: cut, wal };
    if (waited >= OPEN_WRITES_WAIT_MS) {
      throw new HttpError(503, 'dataExport.openWrites', {}, { 'Retry-After': String(Math.ceil(settleMs / 1000) + 1) });
    }
    await sleep(POLL_MS);
  }
}

/**
 * Whether reads from the replica (DATABASE_REPLICA_URL) show what the cut was decided on: every writer
 * the cut no longer waited for committed on the primary before `wal`, and one the replica has not
 * replayed yet would be missing from the answer, for good once the partner resumes after it (the lag
 * the replica is read within, DATABASE_REPLICA_MAX_LAG_MS, still misses what committed just before).
 * Waits up to REPLICA_CATCH_UP_WAIT_MS for it to replay that far; false when it has not, and the read
 * goes to the primary's own handle instead. True at once without a replica; false at once while reads go
 * to the primary anyway (the replica unreachable or too far behind): a stream's later batches would go
 * back to the replica through the replica view once it is read again, replayed that far or not.
 */
export async function replicaCaughtUp(
  seesPrimaryWal: ((lsn: string) => Promise<boolean | 'primary'>) | undefined,
  wal: string | undefined,
  sleep: (ms: number) => Promise<unknown> = pause,
): Promise<boolean> {
  if (seesPrimaryWal === undefined || wal === undefined) return true;
  for (let waited = 0; ; waited += REPLICA_POLL_MS) {
    const seen = await seesPrimaryWal(wal);
    if (seen === true) return true;
    if (seen === 'primary' || waited >= REPLICA_CATCH_UP_WAIT_MS) return false;
    await sleep(REPLICA_POLL_MS);
  }
}
