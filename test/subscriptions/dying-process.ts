import type { KyselyPlugin } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

// A database handle through which the app's process can "die" at a chosen moment: from die() on, every
// statement it runs fails (and each transaction it had open rolls back), so nothing the process would
// have written after that moment is written, as if it had been killed; revive() is a new process on the
// same database. Give `handle` to the app (createTestApp's wrapDatabase); the test's own handle stays alive.

export interface DyingProcess {
  handle: DatabaseHandle;
  die(): void;
  revive(): void;
}

export function dyingProcess(database: DatabaseHandle): DyingProcess {
  let dead = false;
  const check = () => {
    if (dead) throw new Error('the process died (a test stopped its database)');
  };
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      check();
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const db = database.db.withPlugin(plugin);
  const handle: DatabaseHandle = {
    ...database,
    db,
    readDb: database.readDb === database.db ? db : database.readDb.withPlugin(plugin),
    select(sql, parameters) {
      check();
      return database.select(sql, parameters);
    },
    selectOn(on, sql, parameters) {
      check();
      return database.selectOn(on, sql, parameters);
    },
    get replicaReads() {
      return handle;
    },
    // The app does not own the handle; createTestApp closes the database it opened.
    close: async () => {},
  };
  return {
    handle,
    die: () => (dead = true),
    revive: () => (dead = false),
  };
}
