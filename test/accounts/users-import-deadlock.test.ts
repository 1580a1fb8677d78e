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
import { as } from '../profile/helpers.js';

// A line of `import users` locks the person's client accounts in id order (findPersonByEmail, as the
// erasure does). A profile change stamps every account of the user for the data export
// (touchExportedAccounts): when it locked only the caller's own account first, logged in to the newer
// of two accounts it held that one and then wanted the older, which the line held while it waited for
// the newer, and PostgreSQL ended one of them (40P01). The change now takes them all in id order
// first (test/profile/change-deadlock.test.ts), so the line waits for it; the line would still run
// again after a deadlock (inTransactionRetryingOnDeadlock), as it only writes the database.
// SQLite runs one write transaction at a time, so there is no deadlock to meet.

const SALT = 'old-system-salt';
const legacy = (password: string) => createHash('sha512').update(`${SALT}-${password}-`).digest('hex');
const company = { name: 'Firma OÜ', registryCode: '10000002', street: 'Rüütli 2', city: 'Tartu', postcode: '51007', countryCode: 'EE' };

let t: AccountsTestApp;
let dir: string;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { LEGACY_PASSWORD_SALT: SALT } });
  dir = mkdtempSync(join(tmpdir(), 'storefront-import-'));
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
  'a line and a profile change of the same person at once both go through, without a deadlock (PostgreSQL)',
  async () => {
    const db = t.database.db;
    const email = 'kaks.poodi@example.ee';
    const person = { email, activated: true, legacyPasswordHash: legacy('Kaks-poodi-12') };
    const first = await importUsers(
      { db, log: t.app.log },
      file('two.ndjson', [
        { ...person, store: 'WEB', accountType: 'SIMPLE' },
        { ...person, store: 'WEB2', accountType: 'SIMPLE' },
      ]),
      () => {},
    );
    expect(first.errors).toBe(0);
    // Logged in to the newer account (WEB2), the one a change used to lock first.
    const loggedIn = await login(t, email, 'Kaks-poodi-12', 'WEB2');
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const call = as(t, loggedIn.json().accessToken as string, 'WEB2');
    const user = await db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();

    const warn = vi.spyOn(t.app.log, 'warn');
    const reported: string[] = [];
    let change: ReturnType<typeof call> | undefined;
    let line: ReturnType<typeof importUsers> | undefined;
    // The user's row held: the change waits there holding the person's accounts; the line waits for
    // them. Let go, the change stamps the accounts it holds and commits, and the line goes on.
    await db.transaction().execute(async (trx) => {
      await sql`select id from app_user where id = ${user.id} for update`.execute(trx);
      change = call('PUT', '/client-account', { firstName: 'Kaks' });
      await until('the change to wait for the user', async () => (await lockWaiters(db)) >= 1);
      line = importUsers(
        { db, log: t.app.log },
        file('business.ndjson', [{ ...person, store: 'WEB', accountType: 'BUSINESS', company }]),
        (text) => reported.push(text),
      );
      await until('the line to wait for the accounts', async () => (await lockWaiters(db)) >= 2);
    });
    const [changed, summary] = await Promise.all([change!, line!]);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(reported).toEqual([]);
    expect(summary).toEqual({ lines: 1, outcomes: { 'account added': 1 }, errors: 0 });
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
