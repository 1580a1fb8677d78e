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

/**
 * Makes the schema the one this build's code expects, before a process or a command uses it. The
 * embedded database migrates itself; PostgreSQL is shared by every process of a release and is
 * migrated by an operator, explicitly (`storefront migrate`), so a build that finds migrations
 * pending there refuses, naming the command: code run against the schema it does not expect fails
 * midway on a table or column it cannot find ("relation "job" does not exist").
 */
export async function prepareSchema(handle: DatabaseHandle): Promise<void> {
  if (handle.engine === 'sqlite') {
    await migrateToLatest(handle);
    return;
  }
  const pending = await pendingMigrations(handle);
  if (pending.length === 0) return;
  // A count and the first and last name: a fresh database lacks every migration, and ~80 names on one line hide the command.
  const names = pending.length <= 2 ? pending.join(', ') : `${pending[0]} ... ${pending.at(-1)}`;
  throw new Error(
    `The database needs ${pending.length} migration${pending.length === 1 ? '' : 's'} (${names}); run: storefront migrate (npm run cli -- migrate in a checkout)`,
  );
}
