import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Migrations 2026_12_09_1042 and 1043 gave client_account and sales_history an updated_at that
// defaults to 0: this build's inserts set it to created_at, but a process of the release before
// (running on during a rolling deploy, or until its workers are replaced) inserts without it, and a
// row at 0 is never in the data export's updatedFrom window: an analyst reading by update time never
// learns of that account or sale. An insert that leaves it at 0 now gets its created_at (the new
// build's own stamp for a new row), by a trigger, as the column's default cannot name another
// column; the rows already written so are stamped alike.
const TABLES = ['client_account', 'sales_history'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`create function stamp_updated_from_created() returns trigger language plpgsql as $$
      begin new.updated_at := new.created_at; return new; end $$`.execute(db);
  }
  for (const table of TABLES) {
    const trigger = sql.raw(`${table}_stamp_updated`);
    const t = sql.table(table);
    if (postgres) {
      await sql`create trigger ${trigger} before insert on ${t} for each row when (new.updated_at = 0)
        execute function stamp_updated_from_created()`.execute(db);
    } else {
      await sql`create trigger ${trigger} after insert on ${t} when new.updated_at = 0 begin
        update ${t} set updated_at = new.created_at where id = new.id; end`.execute(db);
    }
    await sql`update ${t} set updated_at = created_at where updated_at = 0`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of TABLES)
    await sql`drop trigger ${sql.raw(`${table}_stamp_updated`)} ${db.getExecutor().adapter instanceof PostgresAdapter ? sql`on ${sql.table(table)}` : sql``}`.execute(
      db,
    );
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`drop function stamp_updated_from_created()`.execute(db);
}
