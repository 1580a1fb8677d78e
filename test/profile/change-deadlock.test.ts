import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { importUsers } from '../../src/modules/accounts/index.js';
import { createAccountsTestApp, login, type AccountsTestApp } from '../helpers/accounts.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { as } from './helpers.js';

// A profile change writes every client account of the user (touchExportedAccounts), and an import
// line, a registration or an erasure of the same person locks those accounts in id order
// (lockAccountsForErasure). Logged in to the newer of two accounts, a change that locked only its
// own account first waited for the older one while the line held it and waited for the newer:
// PostgreSQL ends whichever of the two checks first, and when that was the change, the shopper got
// a 500. PostgreSQL checks a wait once, deadlock_timeout after it began, so a line that has waited
// longer than that before the change closes the circle is never the one ended.
// SQLite runs one write transaction at a time, so there is no deadlock to meet.

const SALT = 'old-system-salt';
const legacy = (password: string) => createHash('sha512').update(`${SALT}-${password}-`).digest('hex');
const company = { name: 'Firma OÜ', registryCode: '10000002', street: 'Rüütli 2', city: 'Tartu', postcode: '51007', countryCode: 'EE' };

let t: AccountsTestApp;
let dir: string;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { LEGACY_PASSWORD_SALT: SALT } });
  dir = mkdtempSync(join(tmpdir(), 'storefront-profile-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return path;
}

it.runIf(engine === 'postgres')(
  'a profile change from the newer of two accounts and an import line for the same person both go through (PostgreSQL)',
  async () => {
    const db = t.database.db;
    const email = 'kaks.kontot@example.ee';
    const person = { email, activated: true, legacyPasswordHash: legacy('Kaks-kontot-12') };
    const first = await importUsers(
      { db, log: t.app.log },
      file('two.ndjson', [
        { ...person, store: 'WEB', accountType: 'SIMPLE' },
        { ...person, store: 'WEB2', accountType: 'SIMPLE' },
      ]),
      () => {},
    );
    expect(first.errors).toBe(0);
    const loggedIn = await login(t, email, 'Kaks-kontot-12', 'WEB2');
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const call = as(t, loggedIn.json().accessToken as string, 'WEB2');
    const user = await db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const { rows } = await sql<{ ms: string }>`select setting as ms from pg_settings where name = 'deadlock_timeout'`.execute(db);

    const warn = vi.spyOn(t.app.log, 'warn');
    const reported: string[] = [];
    let change: ReturnType<typeof call> | undefined;
    let line: ReturnType<typeof importUsers> | undefined;
    // The user's row held: the change waits there; the line then waits for an account the change
    // holds, past its one deadlock check. Let go, the change writes the user's other accounts.
    await db.transaction().execute(async (trx) => {
      await sql`select id from app_user where id = ${user.id} for update`.execute(trx);
      change = call('PUT', '/client-account', { gender: 'FEMALE' });
      await until('the change to wait for the user', async () => (await lockWaiters(db)) >= 1);
      line = importUsers(
        { db, log: t.app.log },
        file('business.ndjson', [{ ...person, store: 'WEB', accountType: 'BUSINESS', company }]),
        (text) => reported.push(text),
      );
      await until('the line to wait for an account', async () => (await lockWaiters(db)) >= 2);
      await new Promise((resolve) => setTimeout(resolve, Number(rows[0]!.ms) + 500));
    });
    const [changed, summary] = await Promise.all([change!, line!]);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ gender: 'FEMALE' });
    expect(reported).toEqual([]);
    expect(summary).toEqual({ lines: 1, outcomes: { 'account added': 1 }, errors: 0 });
    // The line waited for the change and was not ended: its retry (inTransactionRetryingOnDeadlock,
    // a safety net) never ran, and the business account it added is there.
    expect(warn).not.toHaveBeenCalledWith(expect.objectContaining({ attempt: 1 }), expect.stringContaining('deadlock'));
    const accounts = await db
      .selectFrom('client_account')
      .select(['store_code', 'type'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(accounts.map((a) => `${a.store_code}:${a.type}`)).toEqual(['WEB:SIMPLE', 'WEB2:SIMPLE', 'WEB:BUSINESS']);
  },
);
