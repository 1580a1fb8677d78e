import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import * as liveKeyMigration from '../../src/db/migrations/2026_11_29_0500_unique_live_client_accounts.js';
import { isUniqueViolation } from '../../src/db/unique-violation.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// Migration 0500 makes (user, store, kind) unique among the client accounts that are neither
// REMOVED nor ERASED. It goes down and up again on both engines; SQLite remakes the table, which
// must keep every row, every row that refers to one (foreign keys are off meanwhile, so nothing
// cascades), the indexes and the id counter. Down refuses while a key holds two accounts.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

const now = Date.now();
let codes = 0;

async function newUser(): Promise<number> {
  const row = await database.db
    .insertInto('app_user')
    .values({
      email: `migration.${now}.${(codes += 1)}@example.ee`,
      email_verified: true,
      newsletter: false,
      language: 'et',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function newAccount(userId: number, status: 'ACTIVE' | 'REMOVED' | 'ERASED', type: 'BUSINESS' | 'SIMPLE' = 'BUSINESS') {
  const row = await database.db
    .insertInto('client_account')
    .values({
      code: `M${now % 1e6}${(codes += 1)}`,
      user_id: userId,
      store_code: 'WEB',
      type,
      company_id: null,
      role: type === 'SIMPLE' ? 'customer' : 'company_employee',
      status,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

const refusedAsDuplicate = async (write: Promise<unknown>) => {
  const error = await write.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isUniqueViolation(error), String(error)).toBe(true);
};

const accounts = () => database.db.selectFrom('client_account').selectAll().orderBy('id').execute();
const tokens = () => database.db.selectFrom('access_token').select(['token_hash', 'client_account_id']).orderBy('token_hash').execute();
const invitations = () => database.db.selectFrom('company_invitation').selectAll().orderBy('client_account_id').execute();

async function indexes(): Promise<string[]> {
  const query =
    database.engine === 'sqlite'
      ? sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'client_account' and sql is not null order by name`
      : sql<{
          name: string;
        }>`select indexname as name from pg_indexes where tablename = 'client_account' and indexname not like '%pkey' and indexname not like '%code_key' order by indexname`;
  return (await query.execute(database.db)).rows.map((row) => row.name);
}

async function foreignKeysOn(): Promise<boolean> {
  if (database.engine !== 'sqlite') return true;
  const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(database.db);
  return Number(rows[0]!.foreign_keys) === 1;
}

describe(`migration 2026_11_29_0500_unique_live_client_accounts on ${engine}`, () => {
  it('goes down and up again with every row, reference, index and the id counter kept; the key is unique among live accounts', async () => {
    const db = database.db;
    const userId = await newUser();
    const live = await newAccount(userId, 'ACTIVE');
    await newAccount(userId, 'ACTIVE', 'SIMPLE');
    // Rows that name an account and go with it (on delete cascade), had the table been emptied.
    await db
      .insertInto('access_token')
      .values({
        token_hash: `m${now}`,
        user_id: userId,
        client_account_id: live,
        store_code: 'WEB',
        role: 'BUSINESS',
        created_at: now,
        signed_in_at: now,
        expires_at: now + 60_000,
        login_method: 'password',
        native_form: null,
      })
      .execute();
    await db
      .insertInto('company_invitation')
      .values({ client_account_id: live, first_name: 'Mari', last_name: 'Mets', created_at: now })
      .execute();
    // The newest account goes: its id is never given again.
    const deleted = await newAccount(await newUser(), 'ACTIVE');
    await db.deleteFrom('client_account').where('id', '=', deleted).execute();
    const before = { accounts: await accounts(), tokens: await tokens(), invitations: await invitations(), indexes: await indexes() };
    expect(before.tokens).toHaveLength(1);
    expect(before.indexes).toContain('client_account_live_uq');

    await liveKeyMigration.down(db);
    expect(await foreignKeysOn()).toBe(true);
    expect(await accounts()).toEqual(before.accounts);
    expect(await tokens()).toEqual(before.tokens);
    expect(await invitations()).toEqual(before.invitations);
    // PostgreSQL lists the constraint's own index; SQLite's is unnamed (the refusal below shows it).
    const full = database.engine === 'postgres' ? ['client_account_user_store_type_uq'] : [];
    expect(await indexes()).toEqual([...before.indexes.filter((name) => name !== 'client_account_live_uq'), ...full].sort());
    // The schema before: one account per user, store and kind, whatever its status.
    await refusedAsDuplicate(newAccount(userId, 'REMOVED'));

    await liveKeyMigration.up(db);
    expect(await foreignKeysOn()).toBe(true);
    expect(await accounts()).toEqual(before.accounts);
    expect(await tokens()).toEqual(before.tokens);
    expect(await invitations()).toEqual(before.invitations);
    expect(await indexes()).toEqual(before.indexes);

    // Removed and erased accounts may share the key with the live one; two live ones may not.
    const removed = await newAccount(userId, 'REMOVED');
    await newAccount(userId, 'ERASED');
    expect(removed).toBeGreaterThan(deleted);
    await refusedAsDuplicate(newAccount(userId, 'ACTIVE'));
    await refusedAsDuplicate(db.updateTable('client_account').set({ status: 'ACTIVE' }).where('id', '=', removed).execute());
    expect((await db.selectFrom('client_account').select('id').where('user_id', '=', userId).execute()).length).toBe(4);
  });

  it('refuses to go down, naming the keys, while a user holds two accounts of one kind in one store', async () => {
    const db = database.db;
    const userId = await newUser();
    await newAccount(userId, 'REMOVED');
    await newAccount(userId, 'ACTIVE');
    const before = await indexes();

    await expect(liveKeyMigration.down(db)).rejects.toThrow(
      new RegExp(`Cannot restore client_account_user_store_type_uq: .*user ${userId} WEB BUSINESS \\(2 accounts\\)`),
    );
    expect(await foreignKeysOn()).toBe(true);
    // Nothing changed: the live key still holds, a removed duplicate is still allowed.
    expect(await indexes()).toEqual(before);
    await newAccount(userId, 'REMOVED');
    await refusedAsDuplicate(newAccount(userId, 'ACTIVE'));

    // Settled by hand (here: the extra accounts deleted), it goes down and up again.
    await db.deleteFrom('client_account').where('status', 'in', ['REMOVED', 'ERASED']).execute();
    await liveKeyMigration.down(db);
    await liveKeyMigration.up(db);
    expect(await indexes()).toEqual(before);
  });
});
