import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// A version per kind of catalogue reference data (issue 19): 'category' (category, category_name:
// the trees) and 'binding' (binding_name: the cards' binding names), bumped by triggers in the
// writer's own transaction. Every list read a category tree and the binding names; once their
// cache period is over (always, with the caches off) a process asks only the version, one row by
// primary key, and rebuilds the tree only when it changed, so a cold list no longer reads and
// builds the whole tree.

const WATCHED: Array<[table: string, name: 'category' | 'binding']> = [
  ['category', 'category'],
  ['category_name', 'category'],
  ['binding_name', 'binding'],
];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('catalogue_reference_version')
    .addColumn('name', 'varchar(16)', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into catalogue_reference_version (name, version) values ('category', 1), ('binding', 1)`.execute(db);
  for (const [table, name] of WATCHED) {
    const bump = `update catalogue_reference_version set version = version + 1 where name = '${name}';`;
    if (postgres) {
      const fn = `catalogue_reference_bump_${table}`;
      await sql.raw(`create function ${fn}() returns trigger language plpgsql as $$ begin ${bump} return null; end $$`).execute(db);
      await sql
        .raw(`create trigger ${fn} after insert or update or delete on ${table} for each statement execute function ${fn}()`)
        .execute(db);
    } else {
      for (const event of ['insert', 'update', 'delete'])
        await sql.raw(`create trigger catalogue_reference_${table}_${event} after ${event} on ${table} begin ${bump} end`).execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [table] of WATCHED) {
    if (postgres) {
      await sql.raw(`drop trigger if exists catalogue_reference_bump_${table} on ${table}`).execute(db);
      await sql.raw(`drop function if exists catalogue_reference_bump_${table}()`).execute(db);
    } else {
      for (const event of ['insert', 'update', 'delete'])
        await sql.raw(`drop trigger if exists catalogue_reference_${table}_${event}`).execute(db);
    }
  }
  await db.schema.dropTable('catalogue_reference_version').execute();
}
