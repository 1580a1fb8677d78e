import { sql } from 'kysely';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';

/**
 * The health probe's query (`select 1`), prepared once: the probe runs often and should cost the
 * database, not the query builder. The returned function runs it and throws when the database is
 * unreachable.
 */
export function databasePing(database: DatabaseHandle): () => Promise<unknown> {
  return preparedQuery(database, (db) => db.selectNoFrom((eb) => eb.lit(1).as('ok')));
}

/** Names of the migrations the database has run; none when it has never been migrated. */
export async function appliedMigrationNames(db: Db): Promise<string[]> {
  try {
    const result = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return result.rows.map((row) => row.name);
  } catch {
    // No kysely_migration table yet: a database nobody has migrated.
    return [];
  }
}
