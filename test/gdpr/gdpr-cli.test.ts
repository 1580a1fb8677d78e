import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { createCustomer, createEmployee, emailOf, userIdOf } from '../helpers/customers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { engine, migratedScratchDatabase, TEST_CARD_TOKEN_KEYS } from '../helpers/test-app.js';

// `storefront gdpr erase <email>`: the operator's erasure, the same use case as DELETE
// /client-account, run on a database it shares with an app (once as a process of its own).

let dir: string;
let env: Record<string, string>;
let drop: () => Promise<void> = async () => {};
let database: DatabaseHandle;
let app: App;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gdpr-cli-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  // The app built below opens saved cards' tokens as the commands do (PostgreSQL requires the key).
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}`, CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS };
  if (scratch) drop = scratch.drop;
  expect((await runCli(['migrate'], env)).code).toBe(0);
  database = createDatabase(env.DATABASE_URL!);
  app = await buildApp(loadConfig({ ...env, LOG_LEVEL: 'silent', MAIL_DIR: dir }), { database });
});

afterAll(async () => {
  await app?.close();
  await database?.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

const get = (token: string, url: string) => app.inject({ method: 'GET', url, headers: { store: 'WEB', authorization: `Bearer ${token}` } });

/** A new customer's login email and user id. */
async function customer(): Promise<{ email: string; userId: number }> {
  const client = await createCustomer(database.db);
  return { email: await emailOf(database.db, client), userId: await userIdOf(database.db, client) };
}

/** How many times the integrations were told the user was erased. */
const erasedEvents = async (userId: number) =>
  (
    await database.db
      .selectFrom('integration_event')
      .select('id')
      .where('type', '=', 'customer.erased')
      .where('stream', '=', `customer:${userId}`)
      .execute()
  ).length;

describe('storefront gdpr erase', () => {
  it("erases a person's data and ends their logins", async () => {
    const db = database.db;
    const client = await createCustomer(db);
    const user = await db
      .selectFrom('client_account')
      .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
      .select(['app_user.id', 'app_user.email'])
      .where('client_account.id', '=', client.clientAccountId)
      .executeTakeFirstOrThrow();
    const other = await createCustomer(db);
    expect((await get(client.token, '/client-account')).statusCode).toBe(200);

    const result = await runCliProcess(['gdpr', 'erase', user.email.toUpperCase()], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`erased-${user.id}@erased.invalid`);

    expect((await get(client.token, '/client-account')).statusCode).toBe(401);
    const row = await db
      .selectFrom('app_user')
      .select(['email', 'first_name', 'last_name'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email: `erased-${user.id}@erased.invalid`, first_name: null, last_name: null });
    const account = await db
      .selectFrom('client_account')
      .select('status')
      .where('id', '=', client.clientAccountId)
      .executeTakeFirstOrThrow();
    expect(account.status).toBe('ERASED');
    expect((await get(other.token, '/client-account')).statusCode).toBe(200);
  });

  it("run twice at once, erases once: the second finds the email no one's, and the integrations are told once", async () => {
    const { email, userId } = await customer();
    // On PostgreSQL the second is sent while the first holds the person's locks (it waits at the app_user table).
    const [first, second] = await firstHoldingThenSecond(
      database.db,
      'app_user',
      () => runCli(['gdpr', 'erase', email], env),
      () => runCli(['gdpr', 'erase', email], env),
    );
    expect(first.code, first.stderr).toBe(0);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`no user has the email ${email}`);
    expect(await erasedEvents(userId)).toBe(1);
  });

  it('refuses the address an erasure left: the person is not erased, nor the integrations told, again', async () => {
    const { email, userId } = await customer();
    expect((await runCli(['gdpr', 'erase', email], env)).code).toBe(0);
    const placeholder = `erased-${userId}@erased.invalid`;
    const again = await runCli(['gdpr', 'erase', placeholder], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `${placeholder} is the address an erasure left in place of a person's email: that person was erased already`,
    );
    expect(await erasedEvents(userId)).toBe(1);
  });

  it('fails for an unknown email, and explains its usage', async () => {
    const unknown = await runCli(['gdpr', 'erase', 'nobody@example.ee'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no user has the email nobody@example.ee');
    const usage = await runCli(['gdpr', 'erase'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('gdpr erase <email>');
  });

  // The erasure cannot be undone: a dry run names whom an address leads to, by the same erasure rolled back.
  it('with --dry-run names the user and their accounts, and changes nothing: logins, data and the integrations stay', async () => {
    const db = database.db;
    const client = await createCustomer(db);
    const { email, userId } = { email: await emailOf(db, client), userId: await userIdOf(db, client) };
    const before = await db.selectFrom('app_user').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();

    const dry = await runCli(['gdpr', 'erase', email, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Would erase user ${userId} (1 client account: WEB SIMPLE); nothing was changed (--dry-run).`);
    expect(await db.selectFrom('app_user').selectAll().where('id', '=', userId).executeTakeFirstOrThrow()).toEqual(before);
    expect((await get(client.token, '/client-account')).statusCode).toBe(200);
    expect(await erasedEvents(userId)).toBe(0);

    const real = await runCli(['gdpr', 'erase', '--dry-run', 'nobody@example.ee'], env);
    expect(real.code).toBe(1);
    expect(real.stderr).toContain('no user has the email nobody@example.ee');
  });

  it('with --dry-run tells the refusal the erasure would meet, and changes nothing', async () => {
    const db = database.db;
    const master = await createCustomer(db, { kind: 'BUSINESS' });
    await createEmployee(db, master);
    const result = await runCli(['gdpr', 'erase', await emailOf(db, master), '--dry-run'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('last master');
    expect((await get(master.token, '/client-account')).statusCode).toBe(200);
  });

  it('is refused, like the customer, for the last master of a company with other users', async () => {
    const db = database.db;
    const master = await createCustomer(db, { kind: 'BUSINESS' });
    await createEmployee(db, master);
    const email = await emailOf(db, master);
    const result = await runCli(['gdpr', 'erase', email], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('last master');
    expect((await get(master.token, '/client-account')).statusCode).toBe(200);
  });
});
