import { Migrator, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle } from './database.js';
import { migrations } from './migrations/index.js';

/** Brings the schema to the newest version; throws with the failing migration's name. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  return applied(await migrator(handle).migrateToLatest());
}

function migrator(handle: DatabaseHandle): Migrator {
  return new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
}

function applied({ error, results = [] }: MigrationResultSet): string[] {
  const failed = results.find((result) => result.status === 'Error');
  if (error) {
    const where = failed ? ` in migration ${failed.migrationName}` : '';
    throw new Error(`Migration failed${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Migrations this build has that the database has not run yet. */
export async function pendingMigrations(handle: DatabaseHandle): Promise<string[]> {
  return (await migrator(handle).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}
