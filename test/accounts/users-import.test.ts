import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importUsers } from '../../src/modules/accounts/index.js';
import { createAccountsTestApp, login, type AccountsTestApp } from '../helpers/accounts.js';
import { runCli } from '../helpers/cli.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

const SALT = 'old-system-salt';
const legacy = (password: string) => createHash('sha512').update(`${SALT}-${password}-`).digest('hex');
const company = { name: 'Firma OÜ', registryCode: '10000001', street: 'Rüütli 2', city: 'Tartu', postcode: '51007', countryCode: 'EE' };

let t: AccountsTestApp;
let dir: string;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { LEGACY_PASSWORD_SALT: SALT } });
  dir = mkdtempSync(join(tmpdir(), 'storefront-import-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  return path;
}

const users = () =>
  t.database.db
    .selectFrom('app_user')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();

describe('import users', () => {
  it('imports users whose legacy passwords log in, reports bad lines by number and skips them whole', async () => {
    const path = file('users.ndjson', [
      {
        email: 'Vana.Klient@example.ee',
        firstName: 'Vana',
        store: 'WEB',
        accountType: 'SIMPLE',
        activated: true,
        legacyPasswordHash: legacy('Vana-parool-7'),
      },
      '{"email": broken',
      { email: 'firma@example.ee', store: 'WEB', accountType: 'BUSINESS', activated: true },
      { email: 'firma@example.ee', store: 'WEB', accountType: 'BUSINESS', activated: true, company },
      { email: 'vana.klient@example.ee', store: 'WEB2', accountType: 'SIMPLE', activated: true },
      { email: 'uus@example.ee', store: 'WEB', accountType: 'SIMPLE', activated: false, unknownField: 1 },
    ]);
    const reported: string[] = [];
    const summary = await importUsers({ db: t.database.db, log: t.app.log }, path, (line) => reported.push(line));
    expect(summary).toEqual({ lines: 6, outcomes: { created: 2, 'account added': 1 }, errors: 3 });
    expect(reported.map((line) => line.split(':')[0])).toEqual(['line 2', 'line 3', 'line 6']);
    expect(reported[1]).toContain('company');

    const loggedIn = await login(t, 'vana.klient@example.ee', 'Vana-parool-7', 'WEB2');
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const user = await t.database.db
      .selectFrom('app_user')
      .selectAll()
      .where('email', '=', 'vana.klient@example.ee')
      .executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    const accounts = await t.database.db
      .selectFrom('client_account')
      .select(['store_code', 'type', 'company_id'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(accounts.map((a) => `${a.store_code}:${a.type}`)).toEqual(['WEB:SIMPLE', 'WEB2:SIMPLE']);
  });

  it("words a line's faults as the catalogue kinds do, and stores nothing of the line", async () => {
    const user = { email: 'sonad@example.ee', store: 'WEB', accountType: 'SIMPLE', activated: true };
    const { store: _store, ...withoutStore } = user;
    const path = file('faults.ndjson', [
      { ...user, firstName: 'x'.repeat(101) },
      { ...user, activated: 'yes' },
      withoutStore,
      { ...user, email: 'sonad.example.ee' },
      { ...user, lastName: 'Tamm\u0000' },
      { ...user, store: 'WEB3' },
      { ...user, accountType: 'BUSINESS' },
      { ...user, accountType: 'WHOLESALE', store: 'WEB2', company },
    ]);
    const before = await users();
    const reported: string[] = [];
    const summary = await importUsers({ db: t.database.db, log: t.app.log }, path, (line) => reported.push(line));
    expect(summary).toEqual({ lines: 8, outcomes: {}, errors: 8 });
    expect(reported).toEqual([
      'line 1: /firstName: must be at most 100 characters long',
      'line 2: /activated: must be true or false',
      'line 3: /store: is required',
      'line 4: /email: is not an email address',
      'line 5: /lastName: contains the control character U+0000; control characters (tabs and line breaks too) are not allowed here',
      'line 6: /store: must be one of WEB, WEB2',
      'line 7: /company: is required for a BUSINESS account',
      'line 8: /store: must be WEB for a WHOLESALE account',
    ]);
    expect(await users()).toEqual(before);
  });

  it("refuses a line naming an erased person's placeholder, which would give the erased user a live account", async () => {
    const person = await createCustomer(t.database.db);
    const userId = await userIdOf(t.database.db, person);
    const erased = await as(t, person.token)('DELETE', '/client-account', {});
    expect(erased.statusCode, erased.body).toBe(204);
    // A file taken from this system after the erasure names the user by the address the erasure gave it.
    const placeholder = `erased-${userId}@erased.invalid`;
    const path = file('erased.ndjson', [{ email: placeholder, store: 'WEB2', accountType: 'SIMPLE', activated: true }]);
    const reported: string[] = [];
    const summary = await importUsers({ db: t.database.db, log: t.app.log }, path, (line) => reported.push(line));
    expect(summary).toEqual({ lines: 1, outcomes: {}, errors: 1 });
    expect(reported).toEqual([
      "line 1: /email: is the address an erasure left in place of a person's email, not a person's; leave erased people out of the file",
    ]);
    const accounts = await t.database.db
      .selectFrom('client_account')
      .select(['store_code', 'status'])
      .where('user_id', '=', userId)
      .execute();
    expect(accounts).toEqual([{ store_code: 'WEB', status: 'ERASED' }]);
  });

  it('is idempotent: the same file again changes nothing', async () => {
    const lines = [
      { email: 'twice@example.ee', store: 'WEB', accountType: 'SIMPLE', activated: true, legacyPasswordHash: legacy('Kaks-korda-22') },
    ];
    const path = file('twice.ndjson', lines);
    await importUsers({ db: t.database.db, log: t.app.log }, path, () => {});
    const before = await users();
    const again = await importUsers({ db: t.database.db, log: t.app.log }, path, () => {});
    expect(again.outcomes).toEqual({ unchanged: 1 });
    expect(await users()).toEqual(before);
  });

  it('keeps an unactivated user unable to log in until verified', async () => {
    const path = file('inactive.ndjson', [
      { email: 'ootel@example.ee', store: 'WEB', accountType: 'SIMPLE', activated: false, legacyPasswordHash: legacy('Ootel-parool-3') },
    ]);
    await importUsers({ db: t.database.db, log: t.app.log }, path, () => {});
    const response = await login(t, 'ootel@example.ee', 'Ootel-parool-3');
    expect(response.json()).toEqual([{ field: 'email', message: expect.any(String) }]);
  });

  it('runs from the command line and exits non-zero when a line was bad', async () => {
    const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
    const env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
    try {
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const good = await runCli(
        ['import', 'users', file('good.ndjson', [{ email: 'cli@example.ee', store: 'WEB', accountType: 'SIMPLE', activated: true }])],
        env,
      );
      expect(good.code, good.stderr).toBe(0);
      expect(good.stdout).toContain('"created":1');
      const bad = await runCli(['import', 'users', file('bad.ndjson', ['nope'])], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('line 1: not valid JSON');
      expect((await runCli(['import', 'users', join(dir, 'missing.ndjson')], env)).code).toBe(2);
    } finally {
      await scratch?.drop();
    }
  });
});
