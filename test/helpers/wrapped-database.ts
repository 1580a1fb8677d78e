import type { KyselyPlugin } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

// A handle on the same database for the app to run through (createTestApp's wrapDatabase) that lets a
// test see, or stop, every statement: Kysely's queries pass `plugin`, the prepared queries' shortest
// path (select and selectOn) calls `beforePrepared` first. recording-database.ts and
// subscriptions/dying-process.ts are built on it.

export function wrappedDatabase(
  database: DatabaseHandle,
  plugin: KyselyPlugin,
  beforePrepared: (sql: string, parameters: readonly unknown[]) => void,
): DatabaseHandle {
  const db = database.db.withPlugin(plugin);
  const handle: DatabaseHandle = {
    ...database,
    db,
    readDb: database.readDb === database.db ? db : database.readDb.withPlugin(plugin),
    select(sql, parameters) {
      beforePrepared(sql, parameters);
      return database.select(sql, parameters);
    },
    selectOn(on, sql, parameters) {
      beforePrepared(sql, parameters);
      return database.selectOn(on, sql, parameters);
    },
    ping() {
      beforePrepared('select 1', []);
      return database.ping();
    },
    // The app reads the catalogue through replicaReads: without a replica, the handle itself.
    get replicaReads() {
      return handle;
    },
    // The app does not own the handle; createTestApp closes the database it opened.
    close: async () => {},
  };
  return handle;
}
