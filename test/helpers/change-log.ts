import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { engine } from './test-app.js';

// Every row inserted, updated or deleted, per table, on either engine: a trigger on each table logs
// the write into a table of its own in the writer's transaction, so a write rolled back leaves
// nothing (a HEAD that runs a GET's work in a transaction it rolls back changed nothing) and an
// UPDATE counts, which row counts (row-tracker.ts) cannot see. SQLite's total_changes() would count
// rolled-back writes too, and only those of one connection.

const LOG = 'change_log_entry';

export interface ChangeLog {
  /** Writes per table ("order_payment: 1 insert, 2 update") since the last call, and forgets them. */
  take(): Promise<Record<string, string>>;
  /** Removes the triggers and the log. */
  remove(): Promise<void>;
}

export async function changeLog(db: Kysely<Database>): Promise<ChangeLog> {
  const tables = (
    engine === 'sqlite'
      ? // A full-text table takes no trigger; its shadow tables are written with the rows that feed it.
        await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite_%' and sql not like 'create virtual table%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
  ).rows
    .map((row) => row.name)
    .filter((name) => !name.startsWith('kysely_migration') && name !== LOG && name !== 'sweep_row_log');
  if (engine === 'sqlite') {
    await sql.raw(`create table ${LOG} (id integer primary key, t text not null, op text not null)`).execute(db);
    for (const name of tables) {
      for (const op of ['insert', 'update', 'delete']) {
        await sql
          .raw(
            `create trigger "${LOG}_${name}_${op}" after ${op} on "${name}" begin insert into ${LOG} (t, op) values ('${name}', '${op}'); end`,
          )
          .execute(db)
          // FTS5's shadow tables are written by the engine; a table SQLite keeps to itself takes no trigger.
          .catch(() => undefined);
      }
    }
  } else {
    await sql.raw(`create unlogged table ${LOG} (id bigserial primary key, t text not null, op text not null)`).execute(db);
    await sql
      .raw(
        `create function ${LOG}_write() returns trigger language plpgsql as $$
         begin insert into ${LOG} (t, op) values (tg_table_name, lower(tg_op)); return null; end $$`,
      )
      .execute(db);
    for (const name of tables) {
      await sql
        .raw(`create trigger "${LOG}_${name}" after insert or update or delete on "${name}" for each row execute function ${LOG}_write()`)
        .execute(db);
    }
  }
  return {
    async take() {
      const rows = (
        await sql<{
          t: string;
          op: string;
          n: number | string;
        }>`select t, op, count(*) as n from ${sql.table(LOG)} group by t, op order by t, op`.execute(db)
      ).rows;
      await sql`delete from ${sql.table(LOG)}`.execute(db);
      const changes: Record<string, string> = {};
      for (const row of rows) changes[row.t] = [changes[row.t], `${Number(row.n)} ${row.op}`].filter(Boolean).join(', ');
      return changes;
    },
    async remove() {
      if (engine === 'sqlite') {
        for (const name of tables)
          for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists "${LOG}_${name}_${op}"`).execute(db);
        await sql.raw(`drop table ${LOG}`).execute(db);
      } else {
        await sql.raw(`drop table ${LOG}; drop function ${LOG}_write() cascade`).execute(db);
      }
    },
  };
}
