import { readdirSync, readFileSync } from 'node:fs';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest, SQLITE_FOREIGN_KEYS_OFF } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { scratchDatabaseBefore } from '../helpers/migrated-before.js';
import { engine, migratedScratchDatabase, openMigratedScratch } from '../helpers/test-app.js';

// A migration that fails after its first statements leaves nothing of itself behind, and runs once it
// is fixed: each migration commits with its row in kysely_migration or not at all, on SQLite too
// (there Kysely's Migrator ran them without a transaction, so the table it made stayed and the next
// run failed on "table halfway_probe already exists").

const PROBE = '2099_01_01_0000_test_fails_halfway';
const NESTED = '2099_01_01_0000_test_nested_transactions';

/** A table, a column and a changed row, then (when `fails`) a statement that fails. */
const probe = (fails: boolean): Migration => ({
  async up(db) {
    await sql`create table halfway_probe (id integer primary key)`.execute(db);
    await sql`alter table country add column halfway_note varchar(20)`.execute(db);
    await sql`update country set halfway_note = 'half'`.execute(db);
    if (fails) await sql`insert into no_such_table (id) values (1)`.execute(db);
  },
});

let open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open) await close();
  open = [];
});

async function tablesAndColumns(database: DatabaseHandle): Promise<{ probe: boolean; note: boolean }> {
  const tables = await database.db.introspection.getTables();
  return {
    probe: tables.some((table) => table.name === 'halfway_probe'),
    note: tables.find((table) => table.name === 'country')!.columns.some((column) => column.name === 'halfway_note'),
  };
}

async function executed(database: DatabaseHandle): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
  return rows.map((row) => row.name);
}

/** The tables the migrations of these tests make (`..._probe`). */
async function probeTables(database: DatabaseHandle): Promise<string[]> {
  return (await database.db.introspection.getTables()).map((table) => table.name).filter((name) => name.endsWith('_probe'));
}

/** `migration`, run as NESTED, fails with `message`: no transaction left open, nothing recorded. */
async function expectFailsUnrecorded(database: DatabaseHandle, migration: Migration, message: string): Promise<void> {
  const before = await executed(database);
  await expect(migrateToLatest(database, undefined, { ...migrations, [NESTED]: migration })).rejects.toThrow(message);
  expect(database.sqlite!.inTransaction).toBe(false);
  expect(await executed(database)).toEqual(before);
}

/** NESTED, fixed (it does nothing now), runs. */
async function expectRunsAgain(database: DatabaseHandle): Promise<void> {
  expect(await migrateToLatest(database, undefined, { ...migrations, [NESTED]: { up: async () => {} } })).toEqual([NESTED]);
}

describe('a migration that fails halfway', () => {
  it('rolls back whole, is not recorded, and runs once it is fixed', { timeout: 60_000 }, async () => {
    const { database, close } = await openMigratedScratch();
    open.push(close);
    const before = await executed(database);

    const failing = migrateToLatest(database, undefined, { ...migrations, [PROBE]: probe(true) });
    await expect(failing).rejects.toThrow(`Migration failed in migration ${PROBE}: `);
    expect(await tablesAndColumns(database)).toEqual({ probe: false, note: false });
    expect(await executed(database)).toEqual(before);

    expect(await migrateToLatest(database, undefined, { ...migrations, [PROBE]: probe(false) })).toEqual([PROBE]);
    expect(await tablesAndColumns(database)).toEqual({ probe: true, note: true });
    const { rows } = await sql<{ halfway_note: string }>`select distinct halfway_note from country`.execute(database.db);
    expect(rows.map((row) => row.halfway_note)).toEqual(['half']);
  });
});

describe.runIf(engine === 'sqlite')("SQLite: a migration's own transaction, a savepoint of the one migrate opens", () => {
  it(
    "gives Kysely's API as the transaction does (db.fn, the schema builder, sql), and a failure goes back to its savepoint",
    { timeout: 60_000 },
    async () => {
      const { database, close } = await openMigratedScratch();
      open.push(close);
      const nested: Migration = {
        async up(db: Kysely<{ nested_probe: { id: number } }>) {
          await db.schema
            .createTable('nested_probe')
            .addColumn('id', 'integer', (col) => col.primaryKey())
            .execute();
          await db.transaction().execute(async (outer) => {
            await outer.insertInto('nested_probe').values({ id: 1 }).execute();
            await outer.transaction().execute(async (inner) => sql`insert into nested_probe (id) values (2)`.execute(inner));
            await outer
              .transaction()
              .execute(async (inner) => {
                await inner.insertInto('nested_probe').values({ id: 3 }).execute();
                throw new Error('given up');
              })
              .catch(() => undefined);
          });
          // db.fn is a function with the functions as its properties: a bound copy of it had none.
          const { ids, top } = await db
            .selectFrom('nested_probe')
            .select([db.fn.countAll<number>().as('ids'), db.fn.max('id').as('top')])
            .executeTakeFirstOrThrow();
          if (Number(ids) !== 2 || Number(top) !== 2) throw new Error(`nested_probe holds ${ids} rows up to ${top}`);
        },
      };
      expect(await migrateToLatest(database, undefined, { ...migrations, [NESTED]: nested })).toEqual([NESTED]);
    },
  );

  it(
    'fails with the error that ended the whole transaction inside it, not a missing savepoint, and runs again',
    { timeout: 60_000 },
    async () => {
      const { database, close } = await openMigratedScratch();
      open.push(close);
      // OR ROLLBACK (as RAISE(ROLLBACK), and SQLITE_FULL may) ends the whole transaction, its savepoints with it.
      const rollsBackAll: Migration = {
        async up(db) {
          await db.transaction().execute(async (trx) => {
            await sql`create table nested_probe (id integer primary key)`.execute(trx);
            await sql`insert into nested_probe (id) values (1)`.execute(trx);
            await sql`insert or rollback into nested_probe (id) values (1)`.execute(trx);
          });
        },
      };
      await expectFailsUnrecorded(
        database,
        rollsBackAll,
        `Migration failed in migration ${NESTED}: UNIQUE constraint failed: nested_probe.id`,
      );
      await expectRunsAgain(database);
    },
  );

  // A savepoint within a savepoint: the inner one's error ended the whole transaction and a new one was
  // begun, where the outer savepoint is not: going back to it failed with "no such savepoint", which hid
  // the error that ended it.
  it(
    'fails with the error that ended the whole transaction inside a savepoint within a savepoint, not a missing savepoint',
    { timeout: 60_000 },
    async () => {
      const { database, close } = await openMigratedScratch();
      open.push(close);
      const twoDeep: Migration = {
        async up(db) {
          await db.transaction().execute(async (outer) => {
            await sql`create table nested_probe (id integer primary key)`.execute(outer);
            await outer.transaction().execute(async (inner) => {
              await sql`insert into nested_probe (id) values (1)`.execute(inner);
              await sql`insert or rollback into nested_probe (id) values (1)`.execute(inner);
            });
          });
        },
      };
      await expectFailsUnrecorded(database, twoDeep, `Migration failed in migration ${NESTED}: UNIQUE constraint failed: nested_probe.id`);
      await expectRunsAgain(database);
    },
  );

  it(
    'fails, naming the error, when a savepoint within a savepoint caught it ending the whole transaction and went on',
    { timeout: 60_000 },
    async () => {
      const { database, close } = await openMigratedScratch();
      open.push(close);
      const goesOn: Migration = {
        async up(db) {
          await db.transaction().execute(async (outer) => {
            await sql`create table nested_probe (id integer primary key)`.execute(outer);
            await outer
              .transaction()
              .execute(async (inner) => {
                await sql`insert into nested_probe (id) values (1)`.execute(inner);
                await sql`insert or rollback into nested_probe (id) values (1)`.execute(inner);
              })
              .catch(() => undefined);
            await sql`create table after_probe (id integer primary key)`.execute(outer);
          });
        },
      };
      await expectFailsUnrecorded(
        database,
        goesOn,
        `Migration failed in migration ${NESTED}: its transaction was ended inside it by "UNIQUE constraint failed: nested_probe.id"`,
      );
      expect(await probeTables(database)).toEqual([]);
    },
  );

  // A migration that catches such an error and goes on would otherwise run the rest in autocommit: each
  // later statement committed on its own, and its kysely_migration row too, then "cannot commit - no
  // transaction is active" with the migration recorded as applied.
  it(
    'fails, recorded nowhere, when it caught its nested transaction ending the whole one and went on: what it ran after is rolled back too',
    { timeout: 60_000 },
    async () => {
      const { database, close } = await openMigratedScratch();
      open.push(close);
      const goesOn: Migration = {
        async up(db) {
          await db
            .transaction()
            .execute(async (trx) => {
              await sql`create table nested_probe (id integer primary key)`.execute(trx);
              await sql`insert into nested_probe (id) values (1)`.execute(trx);
              await sql`insert or rollback into nested_probe (id) values (1)`.execute(trx);
            })
            .catch(() => undefined);
          await sql`create table after_probe (id integer primary key)`.execute(db);
        },
      };
      await expectFailsUnrecorded(
        database,
        goesOn,
        `Migration failed in migration ${NESTED}: its transaction was ended inside it by "UNIQUE constraint failed: nested_probe.id"`,
      );
      expect(await probeTables(database)).toEqual([]);
      await expectRunsAgain(database);
    },
  );

  it(
    'fails, recorded nowhere, when it caught an error that ended the whole transaction outside a nested one',
    { timeout: 60_000 },
    async () => {
      const { database, close } = await openMigratedScratch();
      open.push(close);
      const goesOn: Migration = {
        async up(db) {
          await sql`create table nested_probe (id integer primary key)`.execute(db);
          await sql`insert into nested_probe (id) values (1)`.execute(db);
          await sql`insert or rollback into nested_probe (id) values (1)`.execute(db).catch(() => undefined);
          await sql`create table after_probe (id integer primary key)`.execute(db);
        },
      };
      await expectFailsUnrecorded(database, goesOn, `Migration failed in migration ${NESTED}: its transaction was ended inside it`);
      // Ran in autocommit, past the point anything could roll it back: the message says so.
      expect(await probeTables(database)).toEqual(['after_probe']);
    },
  );
});

describe.runIf(engine === 'sqlite')('SQLite: a file migrated up to before 2026_11_29_0500', () => {
  // 0500 makes client_account again with foreign keys off (a pragma that does nothing inside a
  // transaction): migrate turns them off around its transaction, so dropping the table deletes none of
  // the rows that refer to it (ON DELETE CASCADE), and on again afterwards.
  it('migrates to the latest with every row that refers to an account kept, foreign keys on again', { timeout: 60_000 }, async () => {
    const scratch = await migratedScratchDatabase(true);
    const database = createDatabase(scratch.url);
    open.push(async () => {
      await database.close();
      await scratch.drop();
    });
    const names = Object.keys(migrations).sort();
    const liveKey = names.indexOf('2026_11_29_0500_unique_live_client_accounts');
    const { error } = await new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } }).migrateTo(
      names[liveKey - 1]!,
    );
    if (error) throw error;
    const now = Date.now();
    await sql`insert into app_user (id, email, email_verified, newsletter, language, created_at, updated_at)
      values (1, 'kept@example.ee', 1, 0, 'et', ${now}, ${now})`.execute(database.db);
    await sql`insert into client_account (id, code, user_id, store_code, type, role, status, created_at)
      values (7, 'KEPT', 1, 'WEB', 'SIMPLE', 'customer', 'ACTIVE', ${now})`.execute(database.db);
    // access_token.client_account_id: on delete cascade.
    await sql`insert into access_token (token_hash, user_id, client_account_id, store_code, role, created_at, expires_at)
      values ('kept-token', 1, 7, 'WEB', 'customer', ${now}, ${now + 60_000})`.execute(database.db);

    expect(await migrateToLatest(database)).toEqual(names.slice(liveKey));
    const { rows } = await sql<{ id: number; token_hash: string }>`
      select a.id, t.token_hash from client_account a join access_token t on t.client_account_id = a.id`.execute(database.db);
    expect(rows.map((row) => [Number(row.id), row.token_hash])).toEqual([[7, 'kept-token']]);
    expect(database.sqlite!.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});

describe.runIf(engine === 'sqlite')('SQLite: a migration run with foreign keys off', () => {
  // 0500 checks only the references to the table it makes; a migration run with foreign keys off that
  // leaves a row of another table referring to nothing is failed by migrate's check of the whole file.
  const KEYS_OFF = '2026_11_29_0500_unique_live_client_accounts';

  it('fails, rolled back and not recorded, when it leaves a dangling reference in any table', { timeout: 60_000 }, async () => {
    const { database, drop } = await scratchDatabaseBefore(KEYS_OFF);
    open.push(async () => {
      await database.close();
      await drop();
    });
    const before = await executed(database);
    const now = Date.now();
    await sql`insert into app_user (id, email, email_verified, newsletter, language, created_at, updated_at)
      values (1, 'kept@example.ee', 1, 0, 'et', ${now}, ${now})`.execute(database.db);
    const leavesDangling: Migration = {
      async up(db) {
        await migrations[KEYS_OFF]!.up(db);
        // email_change.user_id refers to app_user: there is no user 99.
        await sql`insert into email_change (user_id, new_email, requested_at) values (99, 'new@example.ee', ${now})`.execute(db);
      },
    };
    const failing = migrateToLatest(database, undefined, { ...migrations, [KEYS_OFF]: leavesDangling });
    await expect(failing).rejects.toThrow(
      `Migration failed in migration ${KEYS_OFF}: it ran with foreign keys off and left rows referring to none: email_change row 1 (to app_user)`,
    );
    expect(await executed(database)).toEqual(before);
    const { rows } = await sql<{ changes: number }>`select count(*) as changes from email_change`.execute(database.db);
    expect(Number(rows[0]!.changes)).toBe(0);
    // Rolled back whole: client_account still has the constraint 0500 drops.
    const { rows: ddl } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'client_account'`.execute(database.db);
    expect(ddl[0]!.sql).toContain('client_account_user_store_type_uq');
    expect(database.sqlite!.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});

describe('migrations that turn foreign keys off', () => {
  // The pragma does nothing inside the transaction migrate runs a migration in: one that sets it must
  // be named in SQLITE_FOREIGN_KEYS_OFF, or its table's drop deletes the rows that refer to it.
  it('are the ones migrate turns them off for', () => {
    const folder = new URL('../../src/db/migrations/', import.meta.url);
    const setting = readdirSync(folder)
      .filter((file) => /^\d{4}_.*\.ts$/.test(file))
      .filter((file) => /pragma\s+foreign_keys\s*=\s*off/i.test(readFileSync(new URL(file, folder), 'utf8')))
      .map((file) => file.replace(/\.ts$/, ''));
    expect(setting).toEqual([...SQLITE_FOREIGN_KEYS_OFF]);
  });
});
