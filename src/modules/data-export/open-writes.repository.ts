import { sql } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import { onPrimary } from '../../db/replica-routing.js';

/**
 * When the oldest transaction now open in this database began (Unix ms, the database's clock),
 * other than this read's own; undefined when none is, or on SQLite, which cannot tell. Asked of
 * the primary even when the export reads a replica: the writes not committed yet are there. Every
 * session counts, a reader's too: nothing tells which open transaction will write the exported
 * tables before it commits, and a short one holds the export back only by its length. pg_dump's
 * (`backup`) is left out: it reads for minutes and never writes.
 */
export async function oldestOpenTransaction(database: DatabaseHandle): Promise<number | undefined> {
  if (database.engine !== 'postgres') return undefined;
  const { rows } = await onPrimary(() =>
    sql<{ at: string | number | null }>`
      select floor(extract(epoch from min(xact_start)) * 1000) as at from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
        and application_name <> 'pg_dump'`.execute(database.db),
  );
  const at = rows[0]?.at;
  return at === null || at === undefined ? undefined : Number(at);
}
