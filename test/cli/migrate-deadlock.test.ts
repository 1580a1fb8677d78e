import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/lock-waits.js';
import { migrationNames as names, scratchDatabaseBefore } from '../helpers/migrated-before.js';
import { engine } from '../helpers/test-app.js';

// `storefront migrate` on PostgreSQL beside a writer that takes the tables a migration locks in
// another order. 2026_12_12_1110 puts a trigger on product, campaign, campaign_price and
// product_store, in that order (share row exclusive each, until it commits); a products import line
// of a stored product whose stores changed writes product_store first and the product's row after
// (upsertByCode writes a stored record's child rows before its row). The migration waits for the
// line on product_store, the line for the migration on product: PostgreSQL ends one of them
// (deadlock_detected, 40P01), the one whose wait began first, here the migration. Before, the run
// retried a lock timeout only: it exited 1 on the deadlock, the release's migrate failed. Now it is
// rolled back and run again as after a lock timeout; the line goes on once the migration is ended.

const PRICE_AT_COMMIT = '2026_12_12_1110_bump_price_version_at_commit';

let database: DatabaseHandle;
let url: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  if (engine !== 'postgres') return;
  ({ url, database, drop } = await scratchDatabaseBefore(PRICE_AT_COMMIT));
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

/** Whether a session waits for a lock on `table` now. */
async function waitingFor(db: Kysely<Database>, table: string): Promise<boolean> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_locks where not granted and relation = ${table}::regclass`.execute(db);
  return Number(rows[0]!.n) > 0;
}

describe.runIf(engine === 'postgres')('storefront migrate meeting a writer that locks the tables in another order', () => {
  it('is ended on a deadlock, rolls back and runs the migration again', async () => {
    const db = database.db;
    const { id } = await db
      .insertInto('product')
      .values({
        code: 'DL-1',
        type: 'BOOK',
        name: 'Deadlock',
        shop_price_cents: 1000,
        vat_rate_percent: 9,
        availability: 'AVAILABLE',
        is_active: true,
        hidden_web: false,
        hidden_business: false,
        created_at: 1,
        updated_at: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const line = await db.startTransaction().execute();
    let run: ReturnType<typeof runCli> | undefined;
    try {
      // The line has written the product's stores, not yet its row.
      await line.insertInto('product_store').values({ product_id: id, store_code: 'WEB2' }).execute();
      run = runCli(['migrate'], { DATABASE_URL: url, MIGRATE_LOCK_TIMEOUT_MS: '5000', MIGRATE_LOCK_RETRIES: '1' });
      await until('migrate to wait for product_store', () => waitingFor(db, 'product_store'));
      // Its row now: it waits for the migration's lock on product, until PostgreSQL ends the migration.
      await line.updateTable('product').set({ updated_at: 2 }).where('id', '=', id).execute();
      await line.commit().execute();
    } catch (error) {
      await line.rollback().execute();
      throw error;
    }
    const result = await run;
    expect(result.stderr).toContain(`Migration ${PRICE_AT_COMMIT} was ended on a deadlock`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Applied: ${PRICE_AT_COMMIT}`);
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    expect(rows.map((row) => row.name)).toEqual(names);
  }, 60_000);
});
