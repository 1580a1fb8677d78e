import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { PoolSource } from './postgres-driver.js';

// Reads that may go to a PostgreSQL read replica (DATABASE_REPLICA_URL): the plain SELECT statements
// outside transactions, and the read-only transactions, of the modules given
// `DatabaseHandle.replicaReads` (catalogue, search, content, export). Their writes and other
// transactions always go to the primary, and so do their reads
//  - inside `onPrimary(...)`: the HTTP layer runs a caller's requests there for a while after the
//    caller wrote (http/read-your-writes.ts), so nobody misses their own write on a lagging replica;
//  - while the replica is unreachable or further behind than the allowed lag (watched in the background).

const primaryOnly = new AsyncLocalStorage<true>();

/** Runs `work` (and everything it starts) with its replica reads on the primary. */
export function onPrimary<T>(work: () => T): T {
  return primaryOnly.run(true, work);
}

export interface ReplicaRoutingOptions {
  /** Past this much replay lag the replica is not read from (ms). */
  maxLagMs: number;
  /** How often the lag is measured (ms). */
  checkEveryMs?: number;
}

export interface ReplicaRouter extends PoolSource {
  /** Whether the replica was usable at the last check. */
  replicaUsable(): boolean;
  /** Measures the lag now (the background check calls it; tests too). */
  check(): Promise<void>;
  /**
   * Whether the replica's reads made now see the primary's WAL up to `lsn` (a position the primary gave,
   * e.g. pg_current_wal_insert_lsn()): whether it has replayed every record before it (replayedUpTo;
   * false when it cannot answer, or is no standby). A lag within `maxLagMs` still misses what committed
   * just before. `'primary'` at once when reads go to the primary now (inside `onPrimary`, or the replica not
   * usable): reads that must see `lsn` take the primary's own handle then, since this view's later reads
   * go to the replica again once it is reachable and within its lag, replayed that far or not.
   */
  seesPrimaryWal(lsn: string): Promise<boolean | 'primary'>;
}

// On the replica: how far it has replayed (null on a server not in recovery), and its WAL's page layout
// (a standby's is its primary's): the page and segment sizes, and whether it is a 64-bit build (replayedUpTo).
const REPLAYED_SQL = `select pg_last_wal_replay_lsn()::text as replayed, current_setting('wal_block_size') as page_bytes,
  pg_size_bytes(current_setting('wal_segment_size'))::text as segment_bytes, version() like '%64-bit' as wide`;

/** A WAL page's and segment's sizes in bytes (wal_block_size, wal_segment_size). */
export interface WalLayout {
  pageBytes: bigint;
  segmentBytes: bigint;
}

// The page headers' sizes in the WAL of a 64-bit build (SizeOfXLogShortPHD, SizeOfXLogLongPHD, aligned
// to 8 bytes as on every 64-bit platform PostgreSQL runs on; 20 and 36 where it aligns to 4), the long
// one on a segment's first page. Part of the WAL format, unchanged since long before PostgreSQL 15.
const PAGE_HEADER_BYTES = 24n;
const SEGMENT_HEADER_BYTES = 40n;

/** A pg_lsn's text (`16/B374D848`) as a number. */
export function lsnBytes(lsn: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(lsn);
  if (match === null) throw new Error(`not a WAL position: ${lsn}`);
  return (BigInt(`0x${match[1]!}`) << 32n) | BigInt(`0x${match[2]!}`);
}

/**
 * Whether a standby that has replayed up to `replayed` (pg_last_wal_replay_lsn(): the end of the last
 * record it replayed) has replayed every record the primary had inserted when its insert position was
 * `inserted` (pg_current_wal_insert_lsn(): where its next record will begin). The two differ by more
 * than the records between them in one case: when the primary's last record ended at a page's end (a
 * segment switch, pg_switch_wal() or archive_timeout, ends at its segment's end), its next record
 * begins past the next page's header, while the standby's replay stands at the page's start, which it
 * never passes until a record is written there. An insert position exactly one header into a page thus
 * means nothing has been inserted on that page: every record ends at or before its start, and a
 * standby replayed that far has them all. Exactly there, by the page's own header: past it, a position
 * is the end of a record that began on the page before (40 bytes into a page other than a segment's
 * first, one whose last 16 bytes spilled over), which the standby at the page's start has not replayed.
 * The header sizes are a 64-bit build's: without `layout` (another build) only `replayed >= inserted` counts.
 *
 * Not compared instead with the primary's write or flush position (pg_current_wal_lsn(),
 * pg_current_wal_flush_lsn()), nor "received all it replayed": a commit made with synchronous_commit
 * off returns before its record is written out, so those may stand before a commit the caller saw.
 */
export function replayedUpTo(replayed: string, inserted: string, layout: WalLayout | undefined): boolean {
  const done = lsnBytes(replayed);
  const wanted = lsnBytes(inserted);
  if (done >= wanted) return true;
  if (layout === undefined) return false;
  const intoPage = wanted % layout.pageBytes;
  const header = wanted % layout.segmentBytes === intoPage ? SEGMENT_HEADER_BYTES : PAGE_HEADER_BYTES;
  return intoPage === header && done >= wanted - header;
}

// On the replica: 0 when everything received has been replayed, else how old the last replayed
// transaction is. An idle primary sends nothing, so an old replay timestamp alone means no lag.
const LAG_SQL = `select case when pg_last_wal_receive_lsn() is not distinct from pg_last_wal_replay_lsn() then 0
  else coalesce(extract(epoch from (now() - pg_last_xact_replay_timestamp())) * 1000, 0) end as lag_ms`;

/** A statement a standby can run and that needs no fresh data: a SELECT that locks nothing. */
export function isPlainRead(sql: string): boolean {
  return /^\s*select\b/i.test(sql) && !/\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i.test(sql);
}

export function replicaRouter(primary: pg.Pool, replica: pg.Pool, options: ReplicaRoutingOptions): ReplicaRouter {
  let usable = false;
  const check = async () => {
    try {
      const { rows } = await replica.query<{ lag_ms: string | number }>(LAG_SQL);
      usable = Number(rows[0]?.lag_ms ?? Infinity) <= options.maxLagMs;
    } catch {
      usable = false;
    }
  };
  const readsReplica = () => usable && primaryOnly.getStore() === undefined;
  void check();
  const timer = setInterval(() => void check(), options.checkEveryMs ?? 1000);
  timer.unref();
  return {
    forStatement: (sql) => (readsReplica() && isPlainRead(sql) ? replica : primary),
    forTransaction: (readOnly) => (readOnly && readsReplica() ? replica : primary),
    replicaUsable: () => usable,
    check,
    async seesPrimaryWal(lsn) {
      if (!readsReplica()) return 'primary';
      try {
        const { rows } = await replica.query<{ replayed: string | null; page_bytes: string; segment_bytes: string; wide: boolean }>(
          REPLAYED_SQL,
        );
        const row = rows[0];
        if (typeof row?.replayed !== 'string') return false;
        const layout = row.wide ? { pageBytes: BigInt(row.page_bytes), segmentBytes: BigInt(row.segment_bytes) } : undefined;
        return replayedUpTo(row.replayed, lsn, layout);
      } catch {
        return false;
      }
    },
    async stop() {
      clearInterval(timer);
      if (!replica.ended) await replica.end();
    },
  };
}
