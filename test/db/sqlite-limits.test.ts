import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedSqliteDialect } from '../../src/db/sqlite-driver.js';
import { inlineLimits } from '../../src/db/sqlite-limits.js';

// SQLite 3.47+ compiles a statement with a bound LIMIT again on every run (it plans with the bound
// value), so the SQLite driver writes a `limit ?`'s integer into the text (src/db/sqlite-limits.ts).

describe('inlineLimits', () => {
  it('writes the integers of limit parameters into the text and keeps the other parameters in order', () => {
    expect(inlineLimits('select a from t where b = ? order by a limit ? offset ?', ['x', 20, 40])).toEqual({
      sql: 'select a from t where b = ? order by a limit 20 offset ?',
      parameters: ['x', 40],
    });
    expect(inlineLimits('select * from (select a from t limit ?) where c = ? limit ?', [5, 'y', 7n])).toEqual({
      sql: 'select * from (select a from t limit 5) where c = ? limit 7',
      parameters: ['y'],
    });
  });

  it('counts no question mark inside strings, quoted names or comments', () => {
    const text = `select '?', "a?", 'it''s ?' as x, \`b?\` from t /* ? */ where c = ? -- ?\n limit ?`;
    expect(inlineLimits(text, ['z', 3])).toEqual({ sql: text.replace('limit ?', 'limit 3'), parameters: ['z'] });
  });

  it('leaves a query as it is when a limit is no integer, a name only ends in "limit", or parameters are numbered', () => {
    const bound = 'select a from t limit ?';
    for (const value of [2.5, '20', null, Number.MAX_SAFE_INTEGER + 2])
      expect(inlineLimits(bound, [value])).toEqual({ sql: bound, parameters: [value] });
    expect(inlineLimits('select a from t where nolimit ? = 1', [4])).toEqual({
      sql: 'select a from t where nolimit ? = 1',
      parameters: [4],
    });
    expect(inlineLimits('select a from t where b = ?1 limit ?', [1, 2])).toEqual({
      sql: 'select a from t where b = ?1 limit ?',
      parameters: [1, 2],
    });
    expect(inlineLimits('select a from t', [])).toEqual({ sql: 'select a from t', parameters: [] });
  });
});

describe('the SQLite driver', () => {
  let sqlite: BetterSqlite3.Database | undefined;
  afterEach(() => sqlite?.close());

  /** A driver over an in-memory table of 10 rows, with every text it prepares recorded. */
  function recordedDriver() {
    sqlite = new BetterSqlite3(':memory:');
    sqlite.exec('create table item (id integer primary key, shelf integer not null)');
    for (let id = 1; id <= 10; id += 1) sqlite.prepare('insert into item (id, shelf) values (?, ?)').run(id, id % 2);
    const prepared: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((text: string) => {
      prepared.push(text);
      return prepare(text);
    }) as typeof sqlite.prepare;
    const dialect = new CachedSqliteDialect(sqlite);
    return { db: new Kysely<{ item: { id: number; shelf: number } }>({ dialect }), driver: dialect.driver, prepared };
  }

  it('prepares a Kysely page once per page size, with the size in the text, and answers the same rows', async () => {
    const { db, prepared } = recordedDriver();
    for (const size of [2, 3, 2, 3, 2]) {
      const rows = await db.selectFrom('item').select('id').where('shelf', '=', 1).orderBy('id').limit(size).offset(1).execute();
      expect(rows.map((row) => row.id)).toEqual([3, 5, 7].slice(0, size));
    }
    expect(prepared.filter((text) => text.includes('from "item"'))).toEqual([
      'select "id" from "item" where "shelf" = ? order by "id" limit 2 offset ?',
      'select "id" from "item" where "shelf" = ? order by "id" limit 3 offset ?',
    ]);
  });

  it('keeps its newest statements when it has prepared a thousand texts, dropping the oldest only', async () => {
    const { driver, prepared } = recordedDriver();
    const text = (n: number) => `select id from item where id = ${n} or shelf = ?`;
    for (let n = 1; n <= 1001; n += 1) await driver.select(text(n), [9]);
    expect(prepared).toHaveLength(1001);
    await driver.select(text(1000), [9]);
    await driver.select(text(2), [9]);
    expect(prepared).toHaveLength(1001);
    await driver.select(text(1), [9]);
    expect(prepared).toHaveLength(1002);
  });

  it("does the same on the prepared queries' path", async () => {
    const { driver, prepared } = recordedDriver();
    for (const size of [4, 4, 1]) {
      const rows = await driver.select<{ id: number }>('select id from item order by id desc limit ?', [size]);
      expect(rows.map((row) => row.id)).toEqual([10, 9, 8, 7].slice(0, size));
    }
    expect(prepared).toEqual(['select id from item order by id desc limit 4', 'select id from item order by id desc limit 1']);
  });
});

describe('the texts of one query', () => {
  it('are at most 16: a seventeenth limit stays bound, the first sixteen keep their texts', () => {
    const text = 'select a from t where b = ? limit ?';
    for (let size = 1; size <= 16; size += 1) expect(inlineLimits(text, ['x', size]).sql).toBe(`select a from t where b = ? limit ${size}`);
    expect(inlineLimits(text, ['x', 17])).toEqual({ sql: text, parameters: ['x', 17] });
    expect(inlineLimits(text, ['x', 3]).sql).toBe('select a from t where b = ? limit 3');
  });
});
