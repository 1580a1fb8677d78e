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
   * e.g. pg_current_wal_insert_lsn()): whether it has replayed that far (pg_last_wal_replay_lsn(); false
   * when it cannot answer, or is no standby). A lag within `maxLagMs` still misses what committed just
   * before. `'primary'` at once when reads go to the primary now (inside `onPrimary`, or the replica not
   * usable): reads that must see `lsn` take the primary's own handle then, since this view's later reads
   * go to the replica again once it is reachable and within its lag, replayed that far or not.
   */
  seesPrimaryWal(lsn: string): Promise<boolean | 'primary'>;
}

// On the replica: whether it has replayed the primary's WAL up to $1 (null, so false, on a server not in recovery).
const REPLAYED_SQL = 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as replayed';

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
        const { rows } = await replica.query<{ replayed: boolean | null }>(REPLAYED_SQL, [lsn]);
        return rows[0]?.replayed === true;
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
