import { Migrator } from 'kysely';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { scratchDatabase } from './test-app.js';

/** This build's migration names, in the order they run. */
export const migrationNames = Object.keys(migrations).sort();

/**
 * A scratch database (scratchDatabase) migrated by Kysely's Migrator up to, not including, `migration`
 * (none run when it is the first): a test of that migration beside a live writer or reader, or of
 * `storefront migrate` taking it from there. `drop` drops the database; close `database` first.
 */
export async function scratchDatabaseBefore(
  migration: string,
): Promise<{ url: string; database: DatabaseHandle; drop: () => Promise<void> }> {
  const { url, drop } = await scratchDatabase();
  const database = createDatabase(url);
  const index = migrationNames.indexOf(migration);
  if (index < 0) throw new Error(`no migration named ${migration}`);
  if (index > 0) {
    const { error } = await new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } }).migrateTo(
      migrationNames[index - 1]!,
    );
    if (error) {
      await database.close();
      await drop();
      throw error;
    }
  }
  return { url, database, drop };
}
