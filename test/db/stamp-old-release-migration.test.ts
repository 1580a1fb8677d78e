import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Migration 2026_12_11_1600's triggers stamp a client_account or sales_history row inserted without
// updated_at (the release before 1042/1043 inserts so) with its created_at. A row inserted WITH an
// updated_at (this build's inserts, an erasure's copy) keeps it, and its down() takes the triggers
// away again (an insert without it stays at 0, as before), on both engines.

const STAMP = '2026_12_11_1600_stamp_old_release_updated';
const names = Object.keys(migrations).sort();
const T = Date.UTC(2026, 0, 5, 8, 0, 0);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const migrator = () => new Migrator({ db: t.database.db, provider: { getMigrations: async () => migrations } });

/** A copy of account `id` under `code` (the original removed, so the one live account a store holds), with `updatedAt` or none. */
async function insertAccount(id: number, code: string, updatedAt?: number): Promise<{ created_at: number; updated_at: number }> {
  await sql`update client_account set status = 'REMOVED' where id = ${id}`.execute(t.database.db);
  if (updatedAt === undefined)
    await sql`insert into client_account (code, user_id, store_code, type, company_id, role, discount_percent, created_at)
      select ${code}, user_id, store_code, type, company_id, role, discount_percent, ${T} from client_account where id = ${id}`.execute(
      t.database.db,
    );
  else
    await sql`insert into client_account (code, user_id, store_code, type, company_id, role, discount_percent, created_at, updated_at)
      select ${code}, user_id, store_code, type, company_id, role, discount_percent, ${T}, ${updatedAt} from client_account where id = ${id}`.execute(
      t.database.db,
    );
  const row = await t.database.db
    .selectFrom('client_account')
    .select(['created_at', 'updated_at'])
    .where('code', '=', code)
    .executeTakeFirstOrThrow();
  return { created_at: Number(row.created_at), updated_at: Number(row.updated_at) };
}

async function insertSale(order: string, updatedAt?: number): Promise<{ created_at: number; updated_at: number }> {
  await t.database.db
    .insertInto('sales_history')
    .values({
      order_code: order,
      client_code: 'W1000001',
      client_type: 'PYSIKLIENT',
      source_type: 'ONLINE',
      city: 'Tallinn',
      session_id: null,
      delivery_method: 'COURIER',
      shop_code: null,
      created_at: T,
      created_nav: null,
      ...(updatedAt === undefined ? {} : { updated_at: updatedAt }),
    })
    .execute();
  const row = await t.database.db
    .selectFrom('sales_history')
    .select(['created_at', 'updated_at'])
    .where('order_code', '=', order)
    .executeTakeFirstOrThrow();
  return { created_at: Number(row.created_at), updated_at: Number(row.updated_at) };
}

it('keeps an updated_at given at insert, stamps one left out, and its down() takes the triggers away', async () => {
  const customer = await createCustomer(t.database.db);
  const id = customer.clientAccountId;
  expect(await insertAccount(id, 'KEEP0001', T + 7_000)).toEqual({ created_at: T, updated_at: T + 7_000 });
  expect(await insertSale('KEEP0001', T + 9_000)).toEqual({ created_at: T, updated_at: T + 9_000 });
  expect(await insertSale('OLD00001')).toEqual({ created_at: T, updated_at: T });

  const { error } = await migrator().migrateTo(names[names.indexOf(STAMP) - 1]!);
  expect(error).toBeUndefined();
  const account = await t.database.db.selectFrom('client_account').select('id').where('code', '=', 'KEEP0001').executeTakeFirstOrThrow();
  expect(await insertAccount(Number(account.id), 'DOWN0001')).toEqual({ created_at: T, updated_at: 0 });
  expect(await insertSale('DOWN0001')).toEqual({ created_at: T, updated_at: 0 });

  // Up again: the rows left at 0 meanwhile are stamped, and the triggers are back.
  const again = await migrator().migrateToLatest();
  expect(again.error).toBeUndefined();
  expect(
    (await t.database.db.selectFrom('sales_history').select('updated_at').where('order_code', '=', 'DOWN0001').executeTakeFirstOrThrow())
      .updated_at,
  ).toBe(T);
  expect(await insertSale('UP000001')).toEqual({ created_at: T, updated_at: T });
});
