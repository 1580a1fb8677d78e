import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { statementNames } from '../../src/db/postgres-driver.js';
import { preparedQuery } from '../../src/db/prepared.js';
import { onPrimary } from '../../src/db/replica-routing.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// PostgreSQL: prepared queries run as named statements, which a connection parses and plans once
// (db/postgres-driver.ts statementNames). pg-pool hands out the client released last, so a query
// right after another runs on the same connection and sees the statements it keeps.

interface Kept {
  name: string;
  runs: number;
}

/** The statements the connection keeps whose text names `table` (pg_prepared_statements is per connection). */
async function keptStatements(database: DatabaseHandle, table: string): Promise<Kept[]> {
  const rows = await sql<{ name: string; runs: number }>`select name, generic_plans + custom_plans as runs
    from pg_prepared_statements where statement like ${`%"${table}"%`} or statement like ${`% ${table} %`}`.execute(database.db);
  return rows.rows.map((row) => ({ name: row.name, runs: Number(row.runs) }));
}

const storeName = (database: DatabaseHandle) =>
  preparedQuery(database, (db, code: string) => db.selectFrom('web_store').select('name').where('code', '=', code));

describe('statement names', () => {
  it('names each text once, up to the most it keeps, and names a text anew when asked', () => {
    const names = statementNames(2);
    const first = names.of('select 1');
    expect(first).toBeDefined();
    expect(names.of('select 1')).toBe(first);
    const second = names.of('select 2');
    expect(second).not.toBe(first);
    expect(names.of('select 3')).toBeUndefined();
    const renewed = names.renew('select 1');
    expect(renewed).not.toBe(first);
    expect(names.of('select 1')).toBe(renewed);
    // Another set's names (another database opened in the process) never collide with these.
    expect(statementNames(2).of('select 1')).not.toBe(renewed);
  });
});

describe.runIf(engine === 'postgres')('named statements on PostgreSQL', () => {
  let database: DatabaseHandle;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ database, close } = await openMigratedScratch());
  });
  afterAll(async () => close());

  it('runs a prepared query as one named statement that its connection keeps and runs again', async () => {
    const read = storeName(database);
    for (let run = 0; run < 3; run += 1) expect(await read('WEB')).toEqual([{ name: expect.any(String) }]);
    const kept = await keptStatements(database, 'web_store');
    expect(kept).toHaveLength(1);
    expect(kept[0]!.runs).toBe(3);
  });

  it('prepares a statement again under a new name when a table changes its rows under it', async () => {
    await sql`create table named_change (id integer primary key)`.execute(database.db);
    await sql`insert into named_change (id) values (1)`.execute(database.db);
    const text = 'select * from named_change where id = $1';
    expect(await database.select(text, [1])).toEqual([{ id: 1 }]);
    // A migration of a rolling release: PostgreSQL refuses the kept plan ("cached plan must not change result type").
    await sql`alter table named_change add column note text not null default 'added'`.execute(database.db);
    expect(await database.select(text, [1])).toEqual([{ id: 1, note: 'added' }]);
    expect(await database.select(text, [1])).toEqual([{ id: 1, note: 'added' }]);
  });

  it('prepares a text once per connection for the handle and its replica view, which share the primary pool', async () => {
    // Any server that answers the lag check will do as the "replica": the reads below stay on the primary.
    const routed = await openMigratedScratch({ replica: { url: process.env.TEST_DATABASE_URL!, maxLagMs: 60_000 } });
    try {
      await storeName(routed.database)('WEB');
      await onPrimary(() => storeName(routed.database.replicaReads)('WEB'));
      expect(await keptStatements(routed.database, 'web_store')).toEqual([{ name: expect.any(String), runs: 2 }]);
    } finally {
      await routed.close();
    }
  });

  it('keeps no statement with DATABASE_PREPARED_STATEMENTS off', async () => {
    const off = await openMigratedScratch({ preparedStatements: false });
    try {
      const read = storeName(off.database);
      await read('WEB');
      await read('WEB');
      expect(await keptStatements(off.database, 'web_store')).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
