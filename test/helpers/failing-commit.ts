import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

/**
 * Makes the COMMIT of every transaction that updates `column` of row `id` in `table` fail: the update
 * fires a trigger that writes a row whose deferred foreign key is checked only at COMMIT, so everything
 * before it in the transaction ran (and whatever it did outside the database, too). Both engines.
 * Undone by the function returned. One at a time per database.
 */
export async function failCommitsOfUpdate(
  database: Pick<DatabaseHandle, 'db' | 'engine'>,
  table: string,
  column: string,
  id: number,
): Promise<() => Promise<void>> {
  const db = database.db;
  await sql`create table commit_guard_parent (id integer primary key)`.execute(db);
  await sql`create table commit_guard (parent_id integer references commit_guard_parent (id) deferrable initially deferred)`.execute(db);
  const when = `new.id = ${Number(id)}`;
  if (database.engine === 'sqlite') {
    await sql
      .raw(
        `create trigger commit_guard_trigger after update of ${column} on ${table} when ${when} ` +
          'begin insert into commit_guard (parent_id) values (-1); end',
      )
      .execute(db);
  } else {
    await sql
      .raw(
        'create function commit_guard_fn() returns trigger language plpgsql as ' +
          '$$ begin insert into commit_guard (parent_id) values (-1); return new; end $$',
      )
      .execute(db);
    await sql
      .raw(
        `create trigger commit_guard_trigger after update of ${column} on ${table} for each row when (${when}) ` +
          'execute function commit_guard_fn()',
      )
      .execute(db);
  }
  return async () => {
    await sql
      .raw(database.engine === 'sqlite' ? 'drop trigger commit_guard_trigger' : `drop trigger commit_guard_trigger on ${table}`)
      .execute(db);
    if (database.engine === 'postgres') await sql`drop function commit_guard_fn()`.execute(db);
    await sql`drop table commit_guard`.execute(db);
    await sql`drop table commit_guard_parent`.execute(db);
  };
}
