import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { runCli } from '../helpers/cli.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { migrationNames as names, scratchDatabaseBefore } from '../helpers/migrated-before.js';
import { engine } from '../helpers/test-app.js';

// `storefront migrate` on PostgreSQL while a long reader (an analyst's report, a session left idle in a
// transaction) has read a table a pending migration alters: the `alter table` waits for it, and every
// request reading the table queued behind that wait. The run gives each statement MIGRATE_LOCK_TIMEOUT_MS
// to get its lock, rolls that migration back when it does not, pauses, tries again, and ends naming what it
// waited for; each migration commits on its own, so what the earlier ones locked is free while it waits.
// Before, the run waited for the reader as long as it took, holding every earlier migration's locks
// (1041's share lock on `product`: every write of a product waited too). SQLite has no such readers.

const INDEX_PRODUCT = '2026_12_09_1041_index_product_updated';
const ALTER_CLIENT_ACCOUNT = '2026_12_09_1042_add_client_account_updated';

let database: DatabaseHandle;
let url: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  if (engine !== 'postgres') return;
  ({ url, database, drop } = await scratchDatabaseBefore(INDEX_PRODUCT));
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

/** A session that has read client_account in a transaction still open, until `end` is called; its pid. */
async function readerOfClientAccount(): Promise<{ pid: number; end: () => Promise<void> }> {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  let started!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (started = resolve));
  const reader = database.db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid, (select count(*) from client_account) as n`.execute(trx);
    started(Number(rows[0]!.pid));
    await ended;
  });
  return {
    pid: await pid,
    end: async () => {
      end();
      await reader;
    },
  };
}

/** Whether a session waits for a lock on client_account now. */
async function waitingForClientAccount(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_locks where not granted and relation = 'client_account'::regclass`.execute(db);
  return Number(rows[0]!.n) > 0;
}

async function applied(): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
  return rows.map((row) => row.name);
}

describe.runIf(engine === 'postgres')('storefront migrate behind a reader of a table it alters', () => {
  it('gives up after its retries naming the table and the reader, with the migrations before it committed and their locks free', async () => {
    const reader = await readerOfClientAccount();
    try {
      const run = runCli(['migrate'], { DATABASE_URL: url, MIGRATE_LOCK_TIMEOUT_MS: '500', MIGRATE_LOCK_RETRIES: '1' });
      await until('migrate to wait for client_account', () => waitingForClientAccount(database.db));
      // 1041 indexed product (a share lock: writes wait); committed already, it holds nothing now.
      await database.db.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '200ms'`.execute(trx);
        await sql`update product set name = name where id = -1`.execute(trx);
      });
      const result = await run;
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `Migration ${ALTER_CLIENT_ACCOUNT} waited 500 ms (MIGRATE_LOCK_TIMEOUT_MS) for table client_account, held by pid ${reader.pid} (idle in transaction`,
      );
      expect(result.stderr).toContain('trying again in 500 ms (retry 1 of 1)');
      expect(result.stderr).toMatch(
        /error: Migration \S+ waited 500 ms .* and gave up 2 times; it rolled back \(1 applied before it stay applied\)/,
      );
      expect(await applied()).toContain(INDEX_PRODUCT);
      expect(await applied()).not.toContain(ALTER_CLIENT_ACCOUNT);
    } finally {
      await reader.end();
    }
  });

  it('applies the rest once the reader ends between its tries', async () => {
    const reader = await readerOfClientAccount();
    const run = runCli(['migrate'], { DATABASE_URL: url, MIGRATE_LOCK_TIMEOUT_MS: '500', MIGRATE_LOCK_RETRIES: '5' });
    try {
      await until('migrate to wait for client_account', () => waitingForClientAccount(database.db));
      await until('migrate to give up once', async () => (await lockWaiters(database.db)) === 0);
    } finally {
      await reader.end();
    }
    const result = await run;
    expect(result.stderr).toContain(`Migration ${ALTER_CLIENT_ACCOUNT} waited 500 ms`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Applied: ${ALTER_CLIENT_ACCOUNT}, `);
    expect(await applied()).toEqual(names);
  });
});
