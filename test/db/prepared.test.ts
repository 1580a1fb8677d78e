import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { preparedListQuery, preparedQuery } from '../../src/db/prepared.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// Prepared queries (compiled once) inside and outside transactions, on the engine the suite targets.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

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

  it('runs a list query for lists of any length, with the arguments after the list, in and outside a transaction', async () => {
    // Codes of web stores in the list, of the given activity: the list and a scalar in one statement.
    const storesIn = preparedListQuery(database, (db, codes: readonly string[], active: boolean) =>
      db.selectFrom('web_store').select('code').where('code', 'in', codes).where('is_active', '=', active).orderBy('code'),
    );
    const codes = (rows: Array<{ code: string }>) => rows.map((row) => row.code);
    expect(codes(await storesIn(['WEB'], true))).toEqual(['WEB']);
    expect(codes(await storesIn(['WEB2', 'NOPE', 'WEB'], true))).toEqual(['WEB', 'WEB2']);
    expect(codes(await storesIn(['WEB', 'WEB2'], false))).toEqual([]);
    // Longer than the lengths it keeps compiled: compiled for the call, same answer.
    const many = [...Array.from({ length: 150 }, (_, index) => `X${index}`), 'WEB2'];
    expect(codes(await storesIn(many, true))).toEqual(['WEB2']);
    await expect(
      database.db.transaction().execute(async (trx) => {
        await trx.updateTable('web_store').set({ is_active: false }).where('code', '=', 'WEB2').execute();
        expect(codes(await storesIn.on(trx, ['WEB', 'WEB2'], false))).toEqual(['WEB2']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(codes(await storesIn(['WEB', 'WEB2'], false))).toEqual([]);
    expect(() => storesIn([], true)).toThrow('the list is empty');
  });
});
