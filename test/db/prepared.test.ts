import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { preparedQuery } from '../../src/db/prepared.js';
import { engine, scratchDatabase } from '../helpers/test-app.js';

// Prepared queries (compiled once) inside and outside transactions, on the engine the suite targets.

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

const storeName = () => preparedQuery(database, (db, code: string) => db.selectFrom('web_store').select('name').where('code', '=', code));
const rename = () =>
  preparedQuery(database, (db, name: string, code: string) =>
    db.updateTable('web_store').set({ name }).where('code', '=', code).returning(['code', 'name']),
  );

describe(`prepared queries on ${engine}`, () => {
  it('read and write inside a transaction on its connection: they see its writes, and a rollback undoes them', async () => {
    const read = storeName();
    const write = rename();
    const before = (await read('WEB'))[0]!.name;
    await expect(
      database.db.transaction().execute(async (trx) => {
        expect(await write.on(trx, 'Inside', 'WEB')).toEqual([{ code: 'WEB', name: 'Inside' }]);
        expect(await read.on(trx, 'WEB')).toEqual([{ name: 'Inside' }]);
        // A query of the same SQL built by Kysely on the transaction sees the same.
        expect((await trx.selectFrom('web_store').select('name').where('code', '=', 'WEB').execute())[0]!.name).toBe('Inside');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await read('WEB')).toEqual([{ name: before }]);
    await database.db.transaction().execute(async (trx) => {
      await write.on(trx, 'Committed', 'WEB');
    });
    expect(await read.on(database.db, 'WEB')).toEqual([{ name: 'Committed' }]);
  });

  it('called directly from outside, waits for an open transaction instead of joining it', async () => {
    const read = storeName();
    const write = rename();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const inside = new Promise<void>((resolve) => (wrote = resolve));
    const transaction = database.db.transaction().execute(async (trx) => {
      await write.on(trx, 'Uncommitted', 'WEB');
      wrote();
      await gate;
      throw new Error('roll back');
    });
    await inside;
    const outside = read('WEB');
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await outside).toEqual([{ name: 'Committed' }]);
  });

  // On SQLite the driver makes the row objects itself (from arrays, db/sqlite-driver.ts); PostgreSQL's are pg's.
  it.runIf(engine === 'sqlite')('returns rows with every column under its name, odd names and a repeated name included', async () => {
    const odd = preparedQuery(database, (db, code: string) =>
      db
        .selectFrom('web_store')
        .select([sql<string>`code`.as('__proto__'), sql<string>`'a'`.as('x'), sql<string>`'b'`.as('x'), sql<number>`1`.as('with "quotes"')])
        .where('code', '=', code),
    );
    const [row] = await odd('WEB');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row!)).toEqual([
      ['__proto__', 'WEB'],
      ['x', 'b'],
      ['with "quotes"', 1],
    ]);
  });
});
