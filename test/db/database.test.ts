import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest, pendingMigrations } from '../../src/db/migrate.js';
import { idleTransaction } from '../../src/db/sqlite-driver.js';
import { engine, scratchDatabase } from '../helpers/test-app.js';

let database: DatabaseHandle;
let drop: () => Promise<void>;
beforeAll(async () => {
  const scratch = await scratchDatabase();
  drop = scratch.drop;
  database = createDatabase(scratch.url);
  await migrateToLatest(database);
});
afterAll(async () => {
  await database.close();
  await drop();
});

const storeName = async () =>
  (await database.db.selectFrom('web_store').select('name').where('code', '=', 'WEB').executeTakeFirstOrThrow()).name;

describe(`the ${engine} driver`, () => {
  it('runs on the engine the suite targets', () => {
    expect(database.engine).toBe(engine);
  });

  it('has run every migration, and migrating again changes nothing', async () => {
    expect(await pendingMigrations(database)).toEqual([]);
    expect(await migrateToLatest(database)).toEqual([]);
  });

  it('commits a transaction as a whole', async () => {
    await database.db.transaction().execute(async (trx) => {
      await trx.updateTable('web_store').set({ name: 'Committed' }).where('code', '=', 'WEB').execute();
    });
    expect(await storeName()).toBe('Committed');
  });

  it('rolls a failed transaction back as a whole', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await trx.updateTable('web_store').set({ name: 'Half done' }).where('code', '=', 'WEB').execute();
        throw new Error('crash between two steps');
      }),
    ).rejects.toThrow('crash between two steps');
    expect(await storeName()).toBe('Committed');
  });

  it('keeps queries from outside out of an open transaction that spans awaits', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const inside = new Promise<void>((resolve) => (wrote = resolve));
    const transaction = database.db.transaction().execute(async (trx) => {
      await trx.updateTable('web_store').set({ name: 'Inside' }).where('code', '=', 'WEB').execute();
      wrote();
      await gate;
      throw new Error('roll back');
    });
    // The transaction is open and has written when it says so, not after a guessed sleep.
    await inside;
    // An outside write while the transaction is open must not be swept into its rollback.
    const outside = database.db.updateTable('web_store').set({ name: 'Outside' }).where('code', '=', 'WEB2').execute();
    release();
    await expect(transaction).rejects.toThrow('roll back');
    await outside;
    expect(await storeName()).toBe('Committed');
    const web2 = await database.db.selectFrom('web_store').select('name').where('code', '=', 'WEB2').executeTakeFirstOrThrow();
    expect(web2.name).toBe('Outside');
  });

  it('pings the database for the health probes, after an open transaction on SQLite, and fails once it is closed', async () => {
    await expect(database.ping()).resolves.toBeUndefined();
    const order: string[] = [];
    let pinged: Promise<void> | undefined;
    await database.db.transaction().execute(async (trx) => {
      await trx.selectFrom('web_store').select('name').execute();
      pinged = database.ping().then(() => void order.push('ping'));
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push('transaction');
    });
    await pinged;
    // SQLite has one connection: like every read outside the transaction, the ping waits for its end.
    if (engine === 'sqlite') expect(order).toEqual(['transaction', 'ping']);
    else expect(order.sort()).toEqual(['ping', 'transaction']);

    const scratch = await scratchDatabase();
    const closed = createDatabase(scratch.url);
    try {
      await expect(closed.ping()).resolves.toBeUndefined();
      await closed.close();
      await expect(closed.ping()).rejects.toThrow();
    } finally {
      await scratch.drop();
    }
  });

  it('closes once when asked twice at once (a second signal during shutdown), used or not', async () => {
    const scratch = await scratchDatabase();
    try {
      const used = createDatabase(scratch.url);
      await sql`select 1 as one`.execute(used.db);
      // An open transaction holds a connection, so closing takes a while: the second close comes during the first.
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const running = used.db.transaction().execute(async (trx) => {
        await sql`select 1 as one`.execute(trx);
        entered();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows[0]?.one;
      });
      await inside;
      await expect(Promise.all([used.close(), used.close()])).resolves.toBeDefined();
      // Closing waits for the transaction, which ends as it would have.
      await expect(running).resolves.toBe(1);
      const unused = createDatabase(scratch.url);
      await expect(Promise.all([unused.close(), unused.close()])).resolves.toBeDefined();
      // And once more after it has closed.
      await expect(used.close()).resolves.toBeUndefined();
    } finally {
      await scratch.drop();
    }
  });

  it.skipIf(engine !== 'sqlite')(
    'fails the queries that wait for a transaction which runs nothing, so one awaiting a query of the outer handle does not stop the process',
    async () => {
      const limit = idleTransaction.limitMs;
      idleTransaction.limitMs = 150;
      try {
        const started = Date.now();
        // The transaction waits for the query, the query for the transaction: before, neither ever settled.
        await expect(
          database.db.transaction().execute(async (trx) => {
            await trx.updateTable('web_store').set({ name: 'Deadlocked' }).where('code', '=', 'WEB').execute();
            await database.db.selectFrom('web_store').select('name').execute();
          }),
        ).rejects.toThrow('ran no statement');
        await expect(
          database.db.transaction().execute(async () => {
            await database.select('select name from web_store', []);
          }),
        ).rejects.toThrow('ran no statement');
        expect(Date.now() - started).toBeLessThan(3_000);
        // Rolled back, and the database answers at once.
        expect(await storeName()).toBe('Committed');

        // A transaction at work for longer than the limit keeps its waiters waiting, however long it takes.
        let outside: Promise<unknown> | undefined;
        await database.db.transaction().execute(async (trx) => {
          for (let step = 0; step < 8; step += 1) {
            await trx.selectFrom('web_store').select('name').execute();
            outside ??= database.db.selectFrom('web_store').select('name').where('code', '=', 'WEB').execute();
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        });
        await expect(outside).resolves.toEqual([{ name: 'Committed' }]);
      } finally {
        idleTransaction.limitMs = limit;
      }
    },
  );

  it('serialises concurrent transactions without losing an update', async () => {
    await database.db.updateTable('country').set({ position: 0 }).where('code', '=', 'MT').execute();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        database.db.transaction().execute(async (trx) => {
          await trx
            .updateTable('country')
            .set({ position: sql<number>`position + 1` })
            .where('code', '=', 'MT')
            .execute();
        }),
      ),
    );
    const row = await database.db.selectFrom('country').select('position').where('code', '=', 'MT').executeTakeFirstOrThrow();
    expect(row.position).toBe(20);
  });

  it('stores booleans and millisecond timestamps the same way on both engines', async () => {
    const until = Date.UTC(2030, 0, 1, 12, 0, 0, 123);
    await database.db.updateTable('web_store').set({ is_locked: true, locked_until: until }).where('code', '=', 'WEB2').execute();
    const row = await database.db.selectFrom('web_store').selectAll().where('code', '=', 'WEB2').executeTakeFirstOrThrow();
    expect(Boolean(row.is_locked)).toBe(true);
    expect(row.locked_until).toBe(until);
    expect(typeof row.updated_at).toBe('number');
    const locked = await database.db.selectFrom('web_store').select('code').where('is_locked', '=', true).execute();
    expect(locked.map((r) => r.code)).toEqual(['WEB2']);
  });

  it('binds values as parameters, never as SQL', async () => {
    const hostile = "WEB'; drop table country; --";
    const found = await database.db.selectFrom('web_store').selectAll().where('code', '=', hostile).execute();
    expect(found).toEqual([]);
    expect((await database.db.selectFrom('country').select('code').limit(1).execute()).length).toBe(1);
  });
});
