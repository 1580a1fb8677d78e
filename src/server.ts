import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest, pendingMigrations } from './db/migrate.js';
import { seedDemo } from './db/seed.js';

export interface ServeOptions {
  /** Load demo data when the database is new (used by `npm start`). */
  seedDemo: boolean;
}

/**
 * Runs the API until SIGTERM or SIGINT, then stops accepting connections, lets requests in
 * flight finish, and closes the database.
 */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const database = createDatabase(config.databaseUrl);
  await prepareSchema(database);
  const app = await buildApp(config, { database });
  if (options.seedDemo) {
    const report = await seedDemo(database);
    app.log.info(report, 'demo data ready');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    try {
      await app.close();
      await database.close();
      app.log.info('shut down cleanly');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(`API docs at ${address}${config.basePath}/docs`);
}

/** The embedded database migrates itself; PostgreSQL is migrated by an operator, explicitly. */
async function prepareSchema(database: DatabaseHandle): Promise<void> {
  if (database.engine === 'sqlite') {
    await migrateToLatest(database);
    return;
  }
  const pending = await pendingMigrations(database);
  if (pending.length > 0) {
    await database.close();
    throw new Error(`The database needs migrations (${pending.join(', ')}); run: npm run cli -- migrate`);
  }
}
