import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteInBatches } from '../../src/db/batched-delete.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { recordingStatements } from '../helpers/query-plans.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// deleteInBatches on the engine the suite targets: a backlog larger than a batch goes in several
// statements, exactly the matching rows go, and the count is theirs.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

describe(`deleteInBatches on ${engine}`, () => {
  it('deletes exactly the matching rows of a table keyed by a text column, in more than one statement, and counts them', async () => {
    const db = database.db;
    // 23 old windows (more than four batches of 5) and 7 current ones.
    const rows = Array.from({ length: 30 }, (_, i) => ({ key: `window-${i}`, window_start: i < 23 ? 1_000 + i : 50_000 + i, hits: 1 }));
    await db.insertInto('rate_limit').values(rows).execute();
    const counted = recordingStatements(db);

    const deleted = await deleteInBatches(counted.db, 'rate_limit', {
      key: 'key',
      where: (eb) => eb('window_start', '<', 10_000),
      orderBy: 'window_start',
      batchSize: 5,
    });

    expect(deleted).toBe(23);
    // Five batches of 5, 5, 5, 5, 3: the last one, short, ends it.
    expect(counted.statements).toHaveLength(5);
    const left = await db.selectFrom('rate_limit').select('key').where('key', 'like', 'window-%').orderBy('window_start').execute();
    expect(left.map((row) => row.key)).toEqual(rows.slice(23).map((row) => row.key));
  });

  it('stops after one more statement when the matching rows are a whole number of batches, and deletes nothing else', async () => {
    const db = database.db;
    const now = Date.now();
    const jobs = Array.from({ length: 12 }, (_, i) => ({
      type: 'batched-delete-test',
      payload: '{}',
      status: i % 3 === 0 ? ('dead' as const) : ('done' as const),
      attempts: 1,
      max_attempts: 1,
      run_at: now,
      created_at: now,
      updated_at: now - i,
    }));
    await db.insertInto('job').values(jobs).execute();
    const counted = recordingStatements(db);

    // Eight done jobs: two full batches of 4, then an empty one.
    const deleted = await deleteInBatches(counted.db, 'job', {
      key: 'id',
      where: (eb) => eb.and([eb('type', '=', 'batched-delete-test'), eb('status', '=', 'done')]),
      orderBy: 'updated_at',
      batchSize: 4,
    });

    expect(deleted).toBe(8);
    expect(counted.statements).toHaveLength(3);
    const left = await db.selectFrom('job').select('status').where('type', '=', 'batched-delete-test').execute();
    expect(left.map((row) => row.status)).toEqual(['dead', 'dead', 'dead', 'dead']);
  });

  it('names a batch by the columns of a composite key', async () => {
    const db = database.db;
    await db
      .insertInto('rate_limit')
      .values(Array.from({ length: 7 }, (_, i) => ({ key: `pair-${i}`, window_start: i, hits: i % 2 })))
      .execute();
    const others = () => sql<{ n: number }>`select count(*) as n from rate_limit where key not like 'pair-%'`.execute(db);
    const othersBefore = Number((await others()).rows[0]!.n);
    const counted = recordingStatements(db);

    // rate_limit's key is `key` alone; (key, window_start) names the same rows and exercises the tuple.
    const deleted = await deleteInBatches(counted.db, 'rate_limit', {
      key: ['key', 'window_start'],
      where: (eb) => eb.and([eb('key', 'like', 'pair-%'), eb('hits', '=', 1)]),
      batchSize: 2,
    });

    expect(deleted).toBe(3);
    expect(counted.statements).toHaveLength(2);
    const left = await db.selectFrom('rate_limit').select('key').where('key', 'like', 'pair-%').orderBy('key').execute();
    expect(left.map((row) => row.key)).toEqual(['pair-0', 'pair-2', 'pair-4', 'pair-6']);
    expect(Number((await others()).rows[0]!.n)).toBe(othersBefore);
  });
});

describe.runIf(engine === 'postgres')('deleteInBatches on PostgreSQL, whatever the statistics say', () => {
  it('deletes a backlog of 12,000 rows by a plan linear in it', async () => {
    const db = database.db;
    await sql`insert into rate_limit (key, window_start, hits) select 'backlog-' || n, n, 1 from generate_series(1, 12000) n`.execute(db);
    // The planner's worst choices (what statistics taken while the table was near empty lead to):
    // `key in (select key ... limit 5000)` became a nested loop of the table over its batch, 2-3 s a
    // batch here; the batch by row address does not depend on them.
    const deleted = await db.transaction().execute(async (trx) => {
      for (const setting of ['enable_hashjoin', 'enable_mergejoin', 'enable_indexscan', 'enable_bitmapscan']) {
        await sql`select set_config(${setting}, 'off', true)`.execute(trx);
      }
      await sql`set local statement_timeout = 1000`.execute(trx);
      return deleteInBatches(trx, 'rate_limit', { key: 'key', where: (eb) => eb('key', 'like', 'backlog-%'), batchSize: 5_000 });
    });
    expect(deleted).toBe(12_000);
    expect(await db.selectFrom('rate_limit').select('key').where('key', 'like', 'backlog-%').execute()).toEqual([]);
  });
});
