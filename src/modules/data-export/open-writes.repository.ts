import { sql } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import { WRITES_NOTHING_EXPORTED } from '../../db/no-exported-writes.js';
import { onPrimary } from '../../db/replica-routing.js';

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
 */
export async function oldestOpenTransactionAge(database: DatabaseHandle): Promise<number | undefined> {
  if (database.engine !== 'postgres') return undefined;
  const { rows } = await onPrimary(() =>
    sql<{ age: string | number | null }>`
      select floor(extract(epoch from clock_timestamp() - min(xact_start)) * 1000) as age from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
        and application_name not in ('pg_dump', ${WRITES_NOTHING_EXPORTED})`.execute(database.db),
  );
  const age = rows[0]?.age;
  return age === null || age === undefined ? undefined : Number(age);
}
