import type { KyselyPlugin } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';
import { wrappedDatabase } from '../helpers/wrapped-database.js';

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
  const handle = wrappedDatabase(database, plugin, check);
  return {
    handle,
    die: () => (dead = true),
    revive: () => (dead = false),
  };
}
