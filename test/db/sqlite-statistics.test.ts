import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { engine } from '../helpers/test-app.js';

describe.skipIf(engine !== 'sqlite')('SQLite statistics', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A file with an indexed table of 2,000 rows, ANALYZEd: sqlite_stat1 and STAT4 samples. */
  function analyzedFile(): string {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-stat4-'));
    dirs.push(dir);
    const file = join(dir, 'shop.db');
    const sqlite = new BetterSqlite3(file);
    sqlite.exec('create table item (id integer primary key, shelf integer not null); create index item_shelf on item (shelf)');
    const insert = sqlite.prepare('insert into item (shelf) values (?)');
    sqlite.transaction(() => {
      for (let i = 0; i < 2000; i += 1) insert.run(i % 7 === 0 ? 1 : i);
    })();
    sqlite.exec('analyze');
    expect((sqlite.prepare('select count(*) as n from sqlite_stat4').get() as { n: number }).n).toBeGreaterThan(0);
    sqlite.close();
    return file;
  }

  const count = async (database: ReturnType<typeof createDatabase>, table: string) =>
    Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(database.db)).rows[0]!.n);

  it('drops the STAT4 samples when it opens a file (they make SQLite compile a bound statement on every run) and keeps sqlite_stat1', async () => {
    const database = createDatabase(`sqlite:${analyzedFile()}`, { readWorkers: 1 });
    try {
      expect(await count(database, 'sqlite_stat4')).toBe(0);
      expect(await count(database, 'sqlite_stat1')).toBeGreaterThan(0);
      // The index still plans a bound lookup, on the handle and in the read pool.
      const plan = await sql<{ detail: string }>`explain query plan select id from item where shelf = ${5}`.execute(database.readDb);
      expect(plan.rows.map((row) => row.detail).join(' ')).toContain('item_shelf');
      const rows = await sql<{ id: number }>`select id from item where shelf = ${1}`.execute(database.db);
      expect(rows.rows).toHaveLength(287);
    } finally {
      await database.close();
    }
  });

  it('opens a file without statistics as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-stat4-'));
    dirs.push(dir);
    const database = createDatabase(`sqlite:${join(dir, 'plain.db')}`);
    try {
      const tables = await sql<{ name: string }>`select name from sqlite_schema where name like 'sqlite_stat%'`.execute(database.db);
      expect(tables.rows).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
