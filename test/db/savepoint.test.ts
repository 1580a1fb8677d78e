import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { underSavepoint } from '../../src/db/savepoint.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// underSavepoint on the engine the suite targets: a step's writes stay when it keeps them and go when
// it does not, while the transaction's writes before and after it commit either way; steps nest.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

const row = (key: string) => ({ key, window_start: 1, hits: 1 });
const keys = async () => (await database.db.selectFrom('rate_limit').select('key').orderBy('key').execute()).map((r) => r.key);

describe(`underSavepoint on ${engine}`, () => {
  it('keeps a kept step, undoes an undone one, and commits the rest of the transaction', async () => {
    const answers = await database.db.transaction().execute(async (trx) => {
      await trx.insertInto('rate_limit').values(row('a-before')).execute();
      const kept = await underSavepoint(trx, async () => {
        await trx.insertInto('rate_limit').values(row('b-kept')).execute();
        // A step inside a step, undone: only its own write goes.
        const inner = await underSavepoint(trx, async () => {
          await trx.insertInto('rate_limit').values(row('c-inner-undone')).execute();
          return { keep: false, result: 'inner' };
        });
        return { keep: true, result: inner };
      });
      const undone = await underSavepoint(trx, async () => {
        await trx.insertInto('rate_limit').values(row('d-undone')).execute();
        await trx.updateTable('rate_limit').set({ hits: 9 }).where('key', '=', 'a-before').execute();
        return { keep: false, result: 'short' };
      });
      await trx.insertInto('rate_limit').values(row('e-after')).execute();
      return [kept, undone];
    });
    expect(answers).toEqual(['inner', 'short']);
    expect(await keys()).toEqual(['a-before', 'b-kept', 'e-after']);
    const before = await database.db.selectFrom('rate_limit').select('hits').where('key', '=', 'a-before').executeTakeFirstOrThrow();
    expect(Number(before.hits)).toBe(1);
  });

  it('refuses to run outside a transaction', async () => {
    await expect(underSavepoint(database.db, async () => ({ keep: true, result: 1 }))).rejects.toThrow(/not inside a transaction/);
  });
});
