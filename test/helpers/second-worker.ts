import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createJobRunner, type JobRunner } from '../../src/worker.js';
import { engine, type TestApp } from './test-app.js';

/**
 * Another worker process beside the test app's, for races between two workers: its own pool on
 * PostgreSQL (another process's connections); SQLite in memory has only the app's one database.
 */
export function secondWorker(t: TestApp): { database: DatabaseHandle; jobs: JobRunner; close(): Promise<void> } {
  const database = engine === 'postgres' ? createDatabase(t.config.databaseUrl) : t.database;
  const jobs = createJobRunner(database, t.config, t.app.log, { clock: t.clock });
  return {
    database,
    jobs,
    async close() {
      await jobs.stop();
      if (database !== t.database) await database.close();
    },
  };
}
