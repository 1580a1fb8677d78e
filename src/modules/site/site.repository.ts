import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

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
