import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { idleTransaction } from '../../src/db/sqlite-driver.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// Two processes on one SQLite file (an API and a worker, or a migrate): a transaction's `begin
// immediate` that finds the other holding the write lock past busy_timeout fails with SQLITE_BUSY.
// The driver had already marked a transaction open and never ended it (Kysely rolls back only a
// transaction that began), so every later query of the process waited for it, then failed with
// IdleTransactionError, for good.

const limit = idleTransaction.limitMs;
afterEach(() => {
  idleTransaction.limitMs = limit;
});

describe.runIf(engine === 'sqlite')('a SQLite transaction whose begin finds the file locked', () => {
  it('fails with SQLITE_BUSY and leaves the handle usable', { timeout: 30_000 }, async () => {
    idleTransaction.limitMs = 300;
    const scratch = await migratedScratchDatabase(true);
    const holder = createDatabase(scratch.url);
    const other = createDatabase(scratch.url);
    try {
      await sql`create table busy_probe (id integer)`.execute(holder.db);
      other.sqlite!.pragma('busy_timeout = 50');
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let began!: () => void;
      const holding = new Promise<void>((resolve) => (began = resolve));
      const held = holder.db.transaction().execute(async (trx) => {
        await sql`insert into busy_probe (id) values (1)`.execute(trx);
        began();
        await released;
      });
      await holding;
      const refused = other.db.transaction().execute(async (trx) => sql`insert into busy_probe (id) values (2)`.execute(trx));
      await expect(refused).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      release();
      await held;

      const { rows } = await sql<{ id: number }>`select id from busy_probe`.execute(other.db);
      expect(rows).toEqual([{ id: 1 }]);
      await other.db.transaction().execute(async (trx) => sql`insert into busy_probe (id) values (2)`.execute(trx));
      expect(await other.ping().then(() => 'answered')).toBe('answered');
    } finally {
      await other.close();
      await holder.close();
      await scratch.drop();
    }
  });
});
