import { sql } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import { WRITES_NOTHING_EXPORTED } from '../../db/no-exported-writes.js';
import { onPrimary } from '../../db/replica-routing.js';

export interface OpenWrites {
  /** How long ago (ms) the oldest transaction open now began; undefined when none is, or on SQLite. */
  age: number | undefined;
  /** The primary's WAL position once they were looked at (PostgreSQL): every commit seen ended is before it. */
  wal: string | undefined;
}

/**
 * How long ago (ms) the oldest transaction now open in this database began, other than this read's
 * own; undefined when none is, or on SQLite, which cannot tell. An age, not the database's time: the
 * stamps are the app's clock (infra/clock.ts), which may be set apart from the database's (a test's
 * clock, a skewed host), and a start compared across the two would let a late row through. Asked of
 * the primary even when the export reads a replica: the writes not committed yet are there. Every
 * session counts, a reader's too: nothing tells which open transaction will write the exported
 * tables before it commits, and a short one holds the export back only by its length. Left out:
 * pg_dump's (`backup`), which reads for minutes and never writes, and the transactions marked as
 * writing nothing exported (db/no-exported-writes.ts: the category listing's and the search index's
 * rebuilds, an operator's session that says so), by their own `set local application_name`.
 *
 * With it the primary's WAL insert position, read after the sessions in the same statement: a writer
 * no longer open has its commit before it, so a replica that has replayed that far shows what the
 * cut decided on. The insert position, not pg_current_wal_lsn() (written out): with
 * synchronous_commit off a commit returns before its record is written.
 */
export async function openWrites(database: DatabaseHandle): Promise<OpenWrites> {
  if (database.engine !== 'postgres') return { age: undefined, wal: undefined };
  const { rows } = await onPrimary(() =>
    sql<{ age: string | number | null; wal: string }>`
      select floor(extract(epoch from clock_timestamp() - min(xact_start)) * 1000) as age,
        pg_current_wal_insert_lsn()::text as wal
      from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
        and application_name not in ('pg_dump', ${WRITES_NOTHING_EXPORTED})`.execute(database.db),
  );
  const age = rows[0]?.age;
  return { age: age === null || age === undefined ? undefined : Number(age), wal: rows[0]?.wal };
}
